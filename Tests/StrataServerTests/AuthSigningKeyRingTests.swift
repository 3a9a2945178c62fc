import Foundation
import JWTKit
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// How a server's key ring follows keys changed elsewhere: ``SigningKeyRing/reload()`` (what a
/// `keys` notification calls) and a token naming a kid the ring does not hold yet.
@Suite("Auth: the key ring follows rotations")
struct AuthSigningKeyRingTests {
    /// A ring on the system database of a new test database, and the keys' store to rotate with.
    static func withRing(_ backend: Backend, _ body: @Sendable (SigningKeyRing, SigningKeys) async throws -> Void) async throws {
        try await PostgresSlots.run(backend) {
            let configuration = try await TestDatabases.shared.configuration(backend, demo: false)
            defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
            try await DetachedStore.with(directory: URL(fileURLWithPath: configuration.dataDirectory), database: configuration.database,
                                         logger: TestDatabases.logger) { store in
                let system = SystemDatabase(database: store.system, schema: store.systemSchema)
                try await system.migrate(logger: TestDatabases.logger)
                let keys = SigningKeys(system: system, encryption: KeyEncryption(secret: nil, dataDirectory: configuration.dataDirectory,
                                                                                 logger: TestDatabases.logger), lifetime: 600)
                let ring = SigningKeyRing(store: keys, algorithm: .hs256, now: { Date() }, logger: TestDatabases.logger)
                try await ring.start()
                try await body(ring, keys)
            }
        }
    }

    static func claims() -> AccessTokenClaims {
        let now = AuthStore.seconds(Date())
        return AccessTokenClaims(sub: "ann", roles: [], iat: now, exp: now + 60, iss: "strata", aud: "strata", sid: "s")
    }

    @Test("reload() makes the ring sign with a key rotated elsewhere, and keep verifying the old one", arguments: Backend.allCases)
    func reload(_ backend: Backend) async throws {
        try await Self.withRing(backend) { ring, keys in
            let before = try await ring.sign(Self.claims())
            let added = try await keys.rotate(algorithm: .es256, now: Date())
            #expect(try ring.signingKid != added.kid)
            try await ring.reload()
            #expect(try ring.signingKid == added.kid)
            let after = try await ring.sign(Self.claims())
            #expect(try UnverifiedToken(after).header["kid"]?.stringValue == added.kid)
            #expect(try UnverifiedToken(after).algorithm == "ES256")
            #expect(try await ring.verify(before, now: Date()).sub == "ann")
            #expect(try await ring.verify(after, now: Date()).sub == "ann")
        }
    }

    @Test("An unknown kid right after another one waits for the next read instead of being refused", arguments: Backend.allCases)
    func unknownKidsInARow(_ backend: Backend) async throws {
        try await Self.withRing(backend) { ring, keys in
            // A kid nobody has: the ring reads the keys once and refuses.
            let stranger = SigningKeyMaterial.generate(.hs256)
            let bogus = try await stranger.keyCollection().sign(Self.claims(), kid: JWKIdentifier(string: stranger.kid), header: ["typ": "JWT"])
            await #expect(throws: ODataError.self) { try await ring.verify(bogus, now: Date()) }
            // Within the second, a key is rotated in elsewhere and its first token arrives.
            let added = try await keys.rotate(algorithm: .hs256, now: Date())
            let material = try #require(try await keys.open(at: Date()).first { $0.0.kid == added.kid }?.1)
            let token = try await material.keyCollection().sign(Self.claims(), kid: JWKIdentifier(string: added.kid), header: ["typ": "JWT"])
            // Accepted: the ring waited for its next turn (about a second) and read the keys again;
            // a ring that refused fails here. How long the wait took is not asserted: a CI run
            // with the whole suite on two cores once measured 17 s for it.
            #expect(try await ring.verify(token, now: Date()).sub == "ann")
        }
    }
}
