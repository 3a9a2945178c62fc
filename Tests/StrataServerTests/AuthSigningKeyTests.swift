import Foundation
import HTTPTypes
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

/// Token signing keys live in the system database, sealed, shared by every server on it.
@Suite("Auth: signing keys in the system database")
struct AuthSigningKeyTests {
    @Test("A token issued by one server is accepted by a second one with another data directory, given the same secret")
    func sharedAcrossServers() async throws {
        try await withAuthServer(.postgres, configure: { $0.auth.keySecret = try? KeySecret(SigningKeyTests.secret, source: "test") }) { client, configuration in
            let token = try await client.signIn(TestAccounts.reader).access
            #expect(try await client.get("/auth/me", headers: bearer(token)).status == .ok)
            var second = configuration
            second.dataDirectory = try SigningKeyTests.freshDataDirectory(like: configuration)
            defer { try? FileManager.default.removeItem(atPath: second.dataDirectory) }
            try await SigningKeyTests.withServer(second) { other in
                let me = try await other.get("/auth/me", headers: bearer(token))
                #expect(me.status == .ok, "\(me.text)")
                #expect(me.json["subject"]?.stringValue == TestAccounts.reader)
                // And the other way round.
                let fromSecond = try await other.signIn(TestAccounts.editor).access
                #expect(try await client.get("/auth/me", headers: bearer(fromSecond)).status == .ok)
            }
            // With a secret, nothing about keys is on either server's disk.
            for directory in [configuration.dataDirectory, second.dataDirectory] {
                let names = try FileManager.default.contentsOfDirectory(atPath: directory)
                #expect(!names.contains(KeyEncryptionKey.fileName) && !names.contains(SigningKey.fileName), "\(names)")
            }
        }
    }

    @Test("The table holds the key sealed, never in the clear", arguments: Backend.allCases)
    func sealed(_ backend: Backend) async throws {
        try await withAuthServer(backend, configure: { $0.auth.keySecret = try? KeySecret(SigningKeyTests.secret, source: "test") }) { client, configuration in
            let token = try await client.signIn(TestAccounts.reader).access
            let stored = try await SigningKeyTests.stored(configuration)
            #expect(stored.count == 1)
            let row = try #require(stored.first)
            #expect(row.kid == SigningKeyTests.kid(token) && row.algorithm == "HS256" && row.sealedBy == "secret" && row.publicJWK == nil)
            let material = try #require(try await SigningKeyTests.opened(configuration, at: Date(timeIntervalSince1970: TimeInterval(row.createdAt))).first)
            #expect(material.secret.count == 64)
            let sealed = try #require(Data(base64Encoded: row.sealedKey))
            // Nonce (12) + ciphertext (64) + tag (16), and no trace of the key in any encoding.
            #expect(sealed.count == 12 + 64 + 16)
            #expect(sealed.range(of: Data(material.secret)) == nil)
            #expect(!row.sealedKey.contains(Data(material.secret).base64EncodedString()))
            #expect(!row.sealedKey.contains(RandomSecret.base64URL(material.secret)))
            #expect(!row.keyCheck.isEmpty && row.keyCheck != "")
        }
    }

    @Test("A server given a wrong secret, or none, does not start, and says what to give it", arguments: Backend.allCases)
    func wrongSecret(_ backend: Backend) async throws {
        try await withAuthServer(backend, configure: { $0.auth.keySecret = try? KeySecret(SigningKeyTests.secret, source: "test") }) { client, configuration in
            _ = try await client.signIn(TestAccounts.reader)
            var wrong = configuration
            wrong.auth.keySecret = try KeySecret("another secret, just as long", source: "STRATA_KEY_SECRET")
            await #expect {
                try await SigningKeyTests.withServer(wrong) { _ in }
            } throws: { error in
                let text = "\(error)"
                return text.contains("The key secret from STRATA_KEY_SECRET is not the one") && text.contains("--key-secret-file")
            }
            var none = configuration
            none.auth.keySecret = nil
            await #expect {
                try await SigningKeyTests.withServer(none) { _ in }
            } throws: { error in
                "\(error)".contains("sealed with a key secret, and this server was given none") && "\(error)".contains("STRATA_KEY_SECRET")
            }
            // Failing did not leave a key file behind, nor a second key.
            #expect(!FileManager.default.fileExists(atPath: KeyEncryptionKey.path(in: configuration.dataDirectory)))
            #expect(try await SigningKeyTests.stored(configuration).count == 1)
        }
    }

    @Test("Without a secret, the key-encryption key is generated once into the data directory, 0600", arguments: Backend.allCases)
    func keyEncryptionFile(_ backend: Backend) async throws {
        try await withAuthServer(backend) { client, configuration in
            let token = try await client.signIn(TestAccounts.reader).access
            let path = KeyEncryptionKey.path(in: configuration.dataDirectory)
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let file = try #require(try KeyEncryptionKey.file(in: configuration.dataDirectory, create: false, logger: TestDatabases.logger))
            let row = try #require(try await SigningKeyTests.stored(configuration).first)
            #expect(row.sealedBy == "file" && row.keyCheck == file.check)
            #expect(!FileManager.default.fileExists(atPath: SigningKey.path(in: configuration.dataDirectory)))
            guard backend == .postgres else { return }
            // A second server needs a copy of the file: without it, it says so; with it, it shares the keys.
            var second = configuration
            second.dataDirectory = try SigningKeyTests.freshDataDirectory(like: configuration)
            defer { try? FileManager.default.removeItem(atPath: second.dataDirectory) }
            await #expect {
                try await SigningKeyTests.withServer(second) { _ in }
            } throws: { error in
                "\(error)".contains("Copy key-encryption.key from the data directory of the server that created them")
            }
            #expect(!FileManager.default.fileExists(atPath: KeyEncryptionKey.path(in: second.dataDirectory)))
            try FileManager.default.copyItem(atPath: path, toPath: KeyEncryptionKey.path(in: second.dataDirectory))
            try await SigningKeyTests.withServer(second) { other in
                let me = try await other.get("/auth/me", headers: bearer(token))
                #expect(me.status == .ok, "\(me.text)")
            }
        }
    }

    @Test("A data directory's auth-signing.key is imported once; tokens it signed (without kid) still verify", arguments: Backend.allCases)
    func legacyKeyImported(_ backend: Backend) async throws {
        let legacy = RandomSecret.bytes(64)
        try await withAuthServer(backend, configure: { configuration in
            try? SecretFile.create(at: SigningKey.path(in: configuration.dataDirectory), bytes: legacy, what: "signing key")
        }) { client, configuration in
            let token = try await client.signIn(TestAccounts.reader).access
            let imported = SigningKeyMaterial.legacy(legacy)
            // The table was empty: the imported key signs on.
            #expect(SigningKeyTests.kid(token) == imported.kid)
            let stored = try await SigningKeyTests.stored(configuration)
            #expect(stored.map(\.kid) == [imported.kid])
            #expect(!FileManager.default.fileExists(atPath: SigningKey.path(in: configuration.dataDirectory)))
            #expect(FileManager.default.fileExists(atPath: SigningKey.path(in: configuration.dataDirectory) + SigningKey.importedSuffix))
            // A token as servers before signed them: HS256 with the file's key, no kid.
            let old = try await SigningKeyTests.forge(like: token, key: imported, now: Date(timeIntervalSince1970: 1_750_000_000), withKid: false)
            #expect(SigningKeyTests.kid(old) == nil)
            let me = try await client.get("/auth/me", headers: bearer(old))
            #expect(me.status == .ok, "\(me.text)")
            // Signed with another key, a kid-less token is refused.
            let stranger = try await SigningKeyTests.forge(like: token, key: .legacy(RandomSecret.bytes(64)), now: Date(timeIntervalSince1970: 1_750_000_000), withKid: false)
            #expect(try await client.get("/auth/me", headers: bearer(stranger)).status == .unauthorized)
            // A restart reads no file and keeps the key.
            try await SigningKeyTests.withServer(configuration) { again in
                let me = try await again.get("/auth/me", headers: bearer(old))
                #expect(me.status == .ok, "\(me.text)")
            }
            #expect(try await SigningKeyTests.stored(configuration).count == 1)
        }
    }

    @Test("Rotation: new tokens name the new key, old ones verify until the old key's tokens have expired, another server follows", arguments: Backend.allCases)
    func rotation(_ backend: Backend) async throws {
        let clock = TestClock()
        try await withAuthServer(backend, clock: clock, configure: { $0.auth.keySecret = try? KeySecret(SigningKeyTests.secret, source: "test") }) { client, configuration in
            let first = try await client.signIn(TestAccounts.reader).access
            let firstKid = try #require(SigningKeyTests.kid(first))
            let oldKey = try #require(try await SigningKeyTests.opened(configuration, at: clock.now).first)
            let added = try await Administration.with(configuration, logger: TestDatabases.logger) { admin in
                try await admin.rotateSigningKey(algorithm: .hs256)
            }
            #expect(added.kid != firstKid)
            // Another server (on SQLite: the same files) starts with the new key and accepts the old token.
            var second = configuration
            if backend == .postgres { second.dataDirectory = try SigningKeyTests.freshDataDirectory(like: configuration) }
            defer { if backend == .postgres { try? FileManager.default.removeItem(atPath: second.dataDirectory) } }
            try await SigningKeyTests.withServer(second) { other in
                let fresh = try await other.signIn(TestAccounts.reader).access
                #expect(SigningKeyTests.kid(fresh) == added.kid)
                #expect(try await other.get("/auth/me", headers: bearer(first)).status == .ok)
                // The first server has not heard of the new key (nothing is announced on SQLite; the
                // test does not wait for PostgreSQL's notification): the unknown kid makes it read the keys.
                let me = try await client.get("/auth/me", headers: bearer(fresh))
                #expect(me.status == .ok, "\(me.text)")
                #expect(SigningKeyTests.kid(try await client.signIn(TestAccounts.reader).access) == added.kid)
            }
            // Within a token lifetime of the rotation, a token of the old key is accepted...
            clock.advance(configuration.auth.accessTokenLifetime - 60)
            let late = try await SigningKeyTests.forge(like: first, key: oldKey, now: clock.now)
            #expect(try await client.get("/auth/me", headers: bearer(late)).status == .ok)
            // ...past it (and the leeway), not even one that has not expired.
            clock.advance(60 + Double(SigningKeys.leeway) + 1)
            let tooLate = try await SigningKeyTests.forge(like: first, key: oldKey, now: clock.now)
            let refused = try await client.get("/auth/me", headers: bearer(tooLate))
            #expect(refused.status == .unauthorized)
            #expect(refused.text.contains("retired too long ago"), "\(refused.text)")
            // The next rotation deletes the key that verifies nothing any more.
            try await Administration.with(configuration, logger: TestDatabases.logger) { admin in
                try await admin.rotateSigningKey(algorithm: .hs256)
                let kids = try await admin.listSigningKeys().map(\.kid)
                #expect(kids.count == 2 && !kids.contains(firstKid) && kids.contains(added.kid), "\(kids)")
            }
            // A token naming a kid nobody knows is refused after one look at the table.
            let unknown = try await SigningKeyTests.forge(like: first, key: .generate(.hs256), now: clock.now)
            #expect(try await client.get("/auth/me", headers: bearer(unknown)).status == .unauthorized)
        }
    }

    @Test("A token signed with the server's key is refused when it is not valid yet, issued in the future, or not an access token", arguments: Backend.allCases)
    func tokenTimesAndType(_ backend: Backend) async throws {
        let clock = TestClock()
        try await withAuthServer(backend, clock: clock) { client, configuration in
            let token = try await client.signIn(TestAccounts.reader).access
            let key = try #require(try await SigningKeyTests.opened(configuration, at: clock.now).first)
            let hour: Int64 = 3600
            let fine = try await SigningKeyTests.forge(like: token, key: key, now: clock.now)
            #expect(try await client.get("/auth/me", headers: bearer(fine)).status == .ok)
            // Within the clock skew between servers, a token from a server a little ahead is accepted.
            let skewed = try await SigningKeyTests.forge(like: token, key: key, now: clock.now) { $0.iat += 30; $0.nbf = $0.iat }
            #expect(try await client.get("/auth/me", headers: bearer(skewed)).status == .ok)
            let refusals: [(name: String, token: String, says: String)] = [
                ("future nbf", try await SigningKeyTests.forge(like: token, key: key, now: clock.now) { $0.nbf = $0.iat + hour }, "nbf"),
                ("future iat", try await SigningKeyTests.forge(like: token, key: key, now: clock.now) { $0.iat += hour; $0.exp += hour }, "iat"),
                ("refresh typ in the header", try await SigningKeyTests.forge(like: token, key: key, now: clock.now, typ: "refresh+jwt"), "typ"),
                ("ID token typ in the header", try await SigningKeyTests.forge(like: token, key: key, now: clock.now, typ: "id_token+jwt"), "typ"),
                ("Refresh typ in the payload", try await SigningKeyTests.forge(like: token, key: key, now: clock.now) { $0.typ = "Refresh" }, "typ"),
            ]
            for refusal in refusals {
                let answer = try await client.get("/auth/me", headers: bearer(refusal.token))
                #expect(answer.status == .unauthorized, "\(refusal.name): \(answer.text)")
                #expect(answer.odataError?.message.contains(refusal.says) == true, "\(refusal.name): \(answer.text)")
            }
            let typed = try await SigningKeyTests.forge(like: token, key: key, now: clock.now, typ: "at+jwt") { $0.typ = "Bearer" }
            #expect(try await client.get("/auth/me", headers: bearer(typed)).status == .ok, "RFC 9068's typ is an access token's")
        }
    }

    @Test("ES256: the public key is published at /.well-known/jwks.json and verifies Strata's tokens", arguments: Backend.allCases)
    func jwks(_ backend: Backend) async throws {
        try await withAuthServer(backend, configure: { $0.auth.tokenAlgorithm = .es256 }) { client, configuration in
            let token = try await client.signIn(TestAccounts.reader).access
            let response = try await client.get("/.well-known/jwks.json")
            #expect(response.status == .ok)
            #expect(response.headers[.cacheControl] == "public, max-age=300")
            #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
            let keys = try #require(response.json["keys"]?.arrayValue)
            #expect(keys.count == 1)
            let jwk = try #require(keys.first)
            #expect(jwk["kty"]?.stringValue == "EC" && jwk["crv"]?.stringValue == "P-256" && jwk["alg"]?.stringValue == "ES256"
                    && jwk["use"]?.stringValue == "sig" && jwk["d"] == nil)
            #expect(jwk["kid"]?.stringValue == SigningKeyTests.kid(token))
            // Another service checks the token with the published key alone.
            let publicKey = try ES256PublicKey(parameters: (x: try #require(jwk["x"]?.stringValue), y: try #require(jwk["y"]?.stringValue)))
            let verifier = JWTKeyCollection()
            await verifier.add(ecdsa: publicKey, kid: JWKIdentifier(string: try #require(jwk["kid"]?.stringValue)))
            let claims = try await verifier.verify(token, as: AccessTokenClaims.self)
            #expect(claims.sub == TestAccounts.reader)
            // And with jwt-kit's JWKS reading, as a relying party would load the document.
            let fromDocument = JWTKeyCollection()
            try await fromDocument.add(jwksJSON: response.text)
            #expect(try await fromDocument.verify(token, as: AccessTokenClaims.self).sub == TestAccounts.reader)
            // A key of another server does not verify it.
            let stranger = JWTKeyCollection()
            await stranger.add(ecdsa: ES256PrivateKey().publicKey, kid: JWKIdentifier(string: try #require(jwk["kid"]?.stringValue)))
            await #expect(throws: (any Error).self) { try await stranger.verify(token, as: AccessTokenClaims.self) }
            // After rotating to HS256, the ES256 key stays published while it verifies; HS256 never is.
            _ = try await Administration.with(configuration, logger: TestDatabases.logger) { admin in
                try await admin.rotateSigningKey(algorithm: .hs256)
            }
            try await SigningKeyTests.withServer(configuration) { again in
                let document = try await again.get("/.well-known/jwks.json")
                #expect(document.json["keys"]?.arrayValue?.compactMap { $0["kid"]?.stringValue } == [jwk["kid"]?.stringValue].compactMap { $0 })
            }
        }
    }

    @Test("HS256 keys are never published: the JWKS document is empty", arguments: Backend.allCases)
    func jwksWithoutPublicKeys(_ backend: Backend) async throws {
        try await withAuthServer(backend) { client in
            let response = try await client.get("/.well-known/jwks.json")
            #expect(response.status == .ok)
            #expect(response.text == #"{"keys":[]}"#)
        }
    }

    @Test("/admin/keys lists the keys without material; a rotation there signs the server's next token with the new key", arguments: Backend.allCases)
    func adminRoutes(_ backend: Backend) async throws {
        try await withAuthServer(backend) { client, configuration in
            let first = try await client.signIn(TestAccounts.reader).access
            #expect(try await client.get("/admin/keys", headers: basic(TestAccounts.reader)).status == .forbidden)
            let refused = try await client.send(.post, "/admin/keys/rotate", headers: basic(TestAccounts.admin).merging([.contentType: "application/json"]),
                                                body: #"{"algorithm":"RS256"}"#)
            #expect(refused.status == .badRequest && refused.text.contains("HS256 or ES256"), "\(refused.text)")
            let rotated = try await client.send(.post, "/admin/keys/rotate", headers: basic(TestAccounts.admin).merging([.contentType: "application/json"]),
                                                body: #"{"algorithm":"ES256"}"#)
            #expect(rotated.status == .created, "\(rotated.text)")
            let added = try #require(rotated.json["keys"]?.arrayValue?.first?["kid"]?.stringValue)
            #expect(SigningKeyTests.kid(try await client.signIn(TestAccounts.reader).access) == added)
            #expect(try await client.get("/auth/me", headers: bearer(first)).status == .ok)
            let listed = try await client.get("/admin/keys", headers: basic(TestAccounts.admin))
            #expect(listed.status == .ok)
            let keys = try #require(listed.json["keys"]?.arrayValue)
            #expect(keys.compactMap { $0["kid"]?.stringValue } == [added, SigningKeyTests.kid(first) ?? ""])
            #expect(keys.first?["retired"] == .null && keys.last?["verifiesUntil"]?.int64Value != nil)
            let stored = try await SigningKeyTests.stored(configuration)
            for row in stored { #expect(!listed.text.contains(row.sealedKey)) }
            #expect(try await client.get("/.well-known/jwks.json").json["keys"]?.arrayValue?.count == 1)
        }
    }

    @Test("From the key file to a secret: rotate with both; the file is needed until its keys stop verifying", arguments: Backend.allCases)
    func fileToSecret(_ backend: Backend) async throws {
        let clock = TestClock()
        try await withAuthServer(backend, clock: clock) { client, configuration in
            let old = try await client.signIn(TestAccounts.reader).access
            var withSecret = configuration
            withSecret.auth.keySecret = try KeySecret(SigningKeyTests.secret, source: "STRATA_KEY_SECRET")
            // Not by accident: a secret in the environment does not change how keys are sealed.
            await #expect {
                try await Administration.with(withSecret, logger: TestDatabases.logger) { admin in
                    try await admin.rotateSigningKey(algorithm: .hs256)
                }
            } throws: { error in
                "\(error)".contains("rotate with --change-sealing")
            }
            #expect(try await SigningKeyTests.stored(configuration).count == 1)
            let added = try await Administration.with(withSecret, logger: TestDatabases.logger) { admin in
                try await admin.rotateSigningKey(algorithm: .hs256, changeSealing: true)
            }
            #expect(try await SigningKeyTests.stored(configuration).first { $0.kid == added.kid }?.sealedBy == "secret")
            // Holding both, a server starts and accepts tokens of either key.
            try await SigningKeyTests.withServer(withSecret) { both in
                let me = try await both.get("/auth/me", headers: bearer(old))
                #expect(me.status == .ok, "\(me.text)")
                #expect(SigningKeyTests.kid(try await both.signIn(TestAccounts.reader).access) == added.kid)
            }
            // Holding only the secret, it cannot open the file's key while that still verifies...
            try FileManager.default.removeItem(atPath: KeyEncryptionKey.path(in: configuration.dataDirectory))
            await #expect {
                try await SigningKeyTests.withServer(withSecret) { _ in }
            } throws: { error in
                "\(error)".contains("Copy key-encryption.key")
            }
            // ...and starts once it no longer does.
            clock.advance(configuration.auth.accessTokenLifetime + Double(SigningKeys.leeway) + 1)
            try await SigningKeyTests.withServer(withSecret) { secretOnly in
                let token = try await secretOnly.signIn(TestAccounts.reader).access
                #expect(SigningKeyTests.kid(token) == added.kid)
                let me = try await secretOnly.get("/auth/me", headers: bearer(token))
                #expect(me.status == .ok, "\(me.text)")
            }
        }
    }

    @Test("The secret never reaches the log", arguments: [Backend.sqlite])
    func secretNotLogged(_ backend: Backend) async throws {
        var configuration = try await TestDatabases.shared.configuration(backend)
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        configuration.auth.keySecret = try KeySecret(SigningKeyTests.secret, source: "STRATA_KEY_SECRET")
        configuration.auth.passwordHashCost = 4
        let capture = LogCapture()
        var logger = Logger(label: "keys", factory: { _ in capture })
        logger.logLevel = .trace
        let app = try await buildApplication(configuration, logger: logger)
        try await app.test(.router) { client in
            let document = try await client.get("/.well-known/jwks.json")
            #expect(document.status == .ok)
        }
        #expect(capture.lines.contains { $0.contains("Added a token signing key") })
        #expect(!capture.lines.contains { $0.contains(SigningKeyTests.secret) })
        #expect(!"\(configuration.auth.keySecret!)".contains(SigningKeyTests.secret))
    }
}
