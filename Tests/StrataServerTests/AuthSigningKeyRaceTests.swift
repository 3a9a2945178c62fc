import Foundation
import Logging
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import StrataSQL
import Testing

/// Servers starting at once on a system database without keys end with one active key, which all
/// of them sign with. Each "server" has connections of its own, as separate processes would.
@Suite("Auth: signing keys when servers start at once")
struct AuthSigningKeyRaceTests {
    static let servers = 3

    /// Each server prepares and opens the keys at once; answers the kid each would sign with.
    static func race(_ start: @escaping @Sendable (Int) async throws -> String) async throws -> [String] {
        try await withThrowingTaskGroup(of: String.self) { group in
            for server in 0..<servers { group.addTask { try await start(server) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    static func ring(_ system: SystemDatabase, dataDirectory: String, secret: KeySecret?) async throws -> SigningKeyRing {
        let keys = SigningKeys(system: system, encryption: KeyEncryption(secret: secret, dataDirectory: dataDirectory, logger: TestDatabases.logger),
                               lifetime: 7200)
        let ring = SigningKeyRing(store: keys, algorithm: .es256, now: { Date() }, logger: TestDatabases.logger)
        try await ring.start()
        return ring
    }

    @Test("PostgreSQL: three servers with their own data directories and one secret create one key")
    func postgres() async throws {
        try await withEmptyPostgresDatabase { _, location, _ in
            let schema = "strata_keys_\(UUID().uuidString.prefix(8).lowercased())"
            try await location.withClient(logger: TestDatabases.logger) { client in
                let store = PostgresServiceStore(client: client, counter: .none, logger: TestDatabases.logger)
                try await SystemDatabase(database: store.system, schema: schema).migrate(logger: TestDatabases.logger)
            }
            let secret = try KeySecret(SigningKeyTests.secret, source: "test")
            let kids = try await Self.race { server in
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-keys-\(server)-\(UUID().uuidString.prefix(6))").path
                defer { try? FileManager.default.removeItem(atPath: directory) }
                return try await location.withClient(logger: TestDatabases.logger) { client in
                    let store = PostgresServiceStore(client: client, counter: .none, logger: TestDatabases.logger)
                    return try await Self.ring(SystemDatabase(database: store.system, schema: schema), dataDirectory: directory, secret: secret)
                    .signingKid
                }
            }
            #expect(Set(kids).count == 1, "\(kids)")
            try await location.withClient(logger: TestDatabases.logger) { client in
                let store = PostgresServiceStore(client: client, counter: .none, logger: TestDatabases.logger)
                let stored = try await SystemDatabase(database: store.system, schema: schema).signingKeys()
                #expect(stored.map(\.kid) == [kids[0]] && stored.first?.retiredAt == nil && stored.first?.algorithm == "ES256")
            }
        }
    }

    @Test("SQLite: three servers on one new system file create one key and one key-encryption file")
    func sqlite() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-keys-race-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let setup = try await SQLiteServiceStore.open(directory: directory, singleFile: nil, counter: .none, logger: TestDatabases.logger)
        try await SystemDatabase(database: setup.system, schema: nil).migrate(logger: TestDatabases.logger)
        await setup.close()
        let kids = try await Self.race { _ in
            let store = try await SQLiteServiceStore.open(directory: directory, singleFile: nil, counter: .none, logger: TestDatabases.logger)
            do {
                let kid = try await Self.ring(SystemDatabase(database: store.system, schema: nil), dataDirectory: directory.path, secret: nil)
                    .signingKid
                await store.close()
                return kid
            } catch {
                await store.close()
                throw error
            }
        }
        #expect(Set(kids).count == 1, "\(kids)")
        let store = try await SQLiteServiceStore.open(directory: directory, singleFile: nil, counter: .none, logger: TestDatabases.logger)
        let stored = try await SystemDatabase(database: store.system, schema: nil).signingKeys()
        await store.close()
        #expect(stored.map(\.kid) == [kids[0]])
    }
}
