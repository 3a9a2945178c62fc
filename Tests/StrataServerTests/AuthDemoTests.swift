import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOConcurrencyHelpers
import StrataCore
import StrataDemo
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// What `strata serve --demo` sets up for authentication, and the key-encryption key's file.
@Suite("Auth: demo and key-encryption key")
struct AuthDemoTests {
    @Test("--demo creates the editor account with a random password announced once, never a fixed one")
    func demoEditor() async throws {
        var configuration = try await TestDatabases.shared.configuration(.sqlite, demo: false)
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let announcements = NIOLockedValueBox<[String]>([])
        configuration.demo = true
        configuration.auth.passwordHashCost = 4
        configuration.auth.announce = { text in announcements.withLockedValue { $0.append(text) } }
        let prepared = configuration

        let app = try await buildApplication(prepared, logger: TestDatabases.logger)
        try await app.test(.router) { client in
            let said = announcements.withLockedValue { $0 }
            #expect(said.count == 1)
            let password = try #require(said.first?.split(separator: "\"").dropFirst(3).first.map(String.init))
            #expect(password.count == 20)
            let token = try await client.tokenRequest(json: #"{"username":"editor","password":"\#(password)"}"#)
            #expect(token.status == .ok)
            #expect(try await client.get("/hockey/Teams?$top=1", headers: basic("editor", password)).status == .ok)
            #expect(try await client.get("/hockey/Teams?$top=1").status == .unauthorized)
            #expect(try await client.get("/cardealer/Person(1)").status == .ok)
        }
        // A restart keeps the account and says nothing more.
        let again = try await buildApplication(prepared, logger: TestDatabases.logger)
        try await again.test(.router) { client in
            let person = try await client.get("/cardealer/Person(1)")
            #expect(person.status == .ok)
        }
        #expect(announcements.withLockedValue { $0.count } == 1)
    }

    @Test("The key-encryption key is generated once, 32 random bytes in a file only its owner reads")
    func keyEncryptionFile() async throws {
        try await withAuthServer(.sqlite) { client, configuration in
            let path = KeyEncryptionKey.path(in: configuration.dataDirectory)
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let first = try SecretFile.read(at: path, what: "key-encryption key", logger: TestDatabases.logger)
            #expect(first.count == 32)
            // Widened permissions are narrowed again when the key is read.
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
            let again = try KeyEncryptionKey.file(in: configuration.dataDirectory, create: true, logger: TestDatabases.logger)
            #expect(try SecretFile.read(at: path, what: "key-encryption key", logger: TestDatabases.logger) == first)
            #expect(again?.source == .file)
            #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            #expect(try await client.get("/auth/me", headers: basic(TestAccounts.reader)).status == .ok)
        }
    }
}
