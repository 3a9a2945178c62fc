import Foundation
import HummingbirdTesting
import JWTKit
import Logging
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// Helpers of the signing key tests: a second server on the same system database, the keys as
/// stored, and tokens signed by hand.
enum SigningKeyTests {
    static let secret = "correct horse battery staple, twice over"

    /// A data directory of its own for a second server, holding the demo's model files (which a
    /// PostgreSQL test keeps there) and nothing else: no key of any kind.
    static func freshDataDirectory(like configuration: StrataConfiguration) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-second-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: configuration.dataDirectory) where name.hasSuffix(".model.yaml") {
            try FileManager.default.copyItem(atPath: (configuration.dataDirectory as NSString).appendingPathComponent(name),
                                             toPath: directory.appendingPathComponent(name).path)
        }
        return directory.path
    }

    /// Runs `body` against another server built from `configuration`.
    static func withServer<T: Sendable>(_ configuration: StrataConfiguration, _ body: @Sendable (any TestClientProtocol) async throws -> T) async throws -> T {
        let app = try await buildApplication(configuration, logger: TestDatabases.logger)
        return try await app.test(.router) { client in try await body(client) }
    }

    /// The keys stored in the system database of `configuration`, newest first.
    static func stored(_ configuration: StrataConfiguration) async throws -> [StoredSigningKey] {
        try await Administration.with(configuration, logger: TestDatabases.logger) { admin in
            try await admin.store.system.signingKeys()
        }
    }

    /// The keys of `configuration` that verify at `now`, opened as a server opens them.
    static func opened(_ configuration: StrataConfiguration, at now: Date) async throws -> [SigningKeyMaterial] {
        try await Administration.with(configuration, logger: TestDatabases.logger) { admin in
            try await #require(admin.signingKeys).open(at: now).map(\.1)
        }
    }

    static func kid(_ token: String) -> String? {
        (try? UnverifiedToken(token))?.header["kid"]?.stringValue
    }

    static func claims(_ token: String) throws -> AccessTokenClaims {
        let payload = try #require(token.split(separator: ".").dropFirst().first.flatMap { UnverifiedToken.base64URLDecode($0) })
        return try JSONDecoder().decode(AccessTokenClaims.self, from: payload)
    }

    /// A token for the sign-in of `like`, issued at `now`, signed by `key` (with its kid unless
    /// `withKid` is false), with the JOSE header `typ` given and the claims changed by `edit`.
    static func forge(like token: String, key: SigningKeyMaterial, now: Date, withKid: Bool = true, typ: String = "JWT",
                      edit: (inout AccessTokenClaims) -> Void = { _ in }) async throws -> String {
        var claims = try claims(token)
        claims.iat = AuthStore.seconds(now)
        claims.exp = claims.iat + 600
        edit(&claims)
        let keys = try await key.keyCollection()
        return try await keys.sign(claims, kid: withKid ? JWKIdentifier(string: key.kid) : nil, header: ["typ": .string(typ)])
    }
}
