import Foundation
import StrataCore
import StrataIdentity

/// What the change feed's endpoints need of the server: the keys of its tokens, how long changes
/// are kept, and the clock (tests move it).
package struct FeedSettings: Sendable {
    package let keys: FeedKeyRing
    /// `--change-retention`: a token older than this is refused without reading the log.
    package let retention: Duration
    package let now: @Sendable () -> Date

    package init(keys: FeedKeyRing, retention: Duration, now: @escaping @Sendable () -> Date) {
        self.keys = keys
        self.retention = retention
        self.now = now
    }

    /// `410 Gone` with code `DeltaTokenGone` and what to do: read the collection (or tables) again.
    static func gone(_ why: String, reload: String) -> ODataError {
        ODataError(status: 410, code: ODataDelta.tokenGoneCode,
                   message: "\(why) Read \(reload) again without the token to get the current rows and a new token.")
    }

    /// The message of a token that cannot be followed, by reason.
    static func gone(_ refusal: FeedToken.Refusal, reload: String) -> ODataError {
        switch refusal {
        case .malformed: gone("The change token is not one this server issued (it is damaged or truncated).", reload: reload)
        case .unknownKey: gone("The change token was issued with a key this server no longer has.", reload: reload)
        case .forged: gone("The change token does not verify: it was altered or issued by another deployment.", reload: reload)
        }
    }

    /// Reads and checks a token's age; refusals become ``gone(_:reload:)``.
    func open(_ text: String, reload: String) async throws(ODataError) -> FeedToken {
        let token: FeedToken
        do {
            token = try await FeedToken.decode(text, with: keys)
        } catch {
            throw Self.gone(error, reload: reload)
        }
        let age = now().timeIntervalSince1970 - Double(token.issuedAt)
        guard age <= Double(retention.components.seconds) else {
            throw Self.gone("The change token is older than the change retention; the changes since were pruned.", reload: reload)
        }
        return token
    }
}
