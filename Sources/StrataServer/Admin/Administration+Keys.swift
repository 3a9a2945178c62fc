import Foundation
import StrataCore
import StrataIdentity
import StrataStorage

/// `strata keys rotate|list`: the token signing keys every server on the system database shares.
extension Administration {
    /// Adds a new signing key that every server signs with once it has read it: when it hears of
    /// the change (``SystemChange/keys``, announced on PostgreSQL), when a token names the new key,
    /// or within 30 seconds. The keys before it still verify for a token lifetime; keys retired
    /// longer ago than that are deleted. `changeSealing` lets a process holding both the key file
    /// and a secret seal the new key with the secret, where the current one is sealed with the file.
    @discardableResult
    public func rotateSigningKey(algorithm: TokenAlgorithm, changeSealing: Bool = false) async throws -> SigningKeySummary {
        try await requireSigningKeys().rotate(algorithm: algorithm, now: now(), changeSealing: changeSealing)
    }

    /// Every stored key, newest first; never the keys themselves.
    public func listSigningKeys() async throws -> [SigningKeySummary] {
        try await requireSigningKeys().list()
    }

    /// Adds a new key for change-feed tokens (delta links, `$tables` tokens, event ids); the keys
    /// before it retire but still verify the tokens they made for the change retention plus a day,
    /// so no client has to reload. Servers issue tokens with the new key once they hear of the
    /// change (``SystemChange/keys``) or read their keys again. Answers the new key's id.
    @discardableResult
    public func rotateFeedKey() async throws -> UInt32 {
        let key = FeedKeyRing.newKey(now: now())
        try await store.system.addFeedKey(key, retiringOthers: true)
        return key.id
    }

    private func requireSigningKeys() throws -> SigningKeys {
        guard let signingKeys else { throw ODataError.badRequest("Signing keys are administered with `strata keys`.") }
        return signingKeys
    }
}
