import Foundation
import NIOConcurrencyHelpers
import StrataCore
import StrataSQL
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// Anonymous access and grants answered from memory: the same answers as the statements they
/// replaced, one load for many questions, writes through the store seen at once, other writers'
/// within the maximum age, one load for many concurrent callers, and no stale answers after a
/// failed load.
@Suite("Auth: access settings snapshot")
struct AuthAccessSettingsTests {
    static let roleSets: [Set<String>] = [[], ["coach"], ["brandrep"], ["coach", "brandrep", "closer"], ["stranger"], ["reader"]]
    static let services = ["hockey", "cardealer", "speakeasy", "nosuch"]
    static let tables = ["Teams", "Players", "Equipment", "Person", "Nope"]

    @Test("Grants and anonymous access answer as the per-request statements did, from one load", arguments: Backend.allCases)
    func matchesStatements(_ backend: Backend) async throws {
        try await Self.withSystem(backend) { admin in
            try await admin.grant(role: "coach", service: "hockey", table: "Teams", actions: [.read], rowFilter: nil)
            try await admin.grant(role: "coach", service: "cardealer", table: nil, actions: [.read, .update], rowFilter: nil)
            try await admin.grant(role: "brandrep", service: "hockey", table: "Equipment", actions: [.read, .update], rowFilter: "brand eq $claims.sub")
            try await admin.grant(role: "brandrep", service: "hockey", table: "Players", actions: [.read], rowFilter: nil)
            try await admin.grant(role: "closer", service: "hockey", table: nil, actions: [.delete], rowFilter: nil)
            try await admin.grant(role: "closer", service: "hockey", table: "Teams", actions: [.read], rowFilter: "city eq 'Toronto'")

            // A long maximum age: every load below is one the test caused.
            let store = AuthStore(system: admin.store.system, cacheMaxAge: .seconds(3600))
            #expect(store.accessSettings.loadCount == 0)
            for service in Self.services {
                #expect(try await store.anonymousAccess(service) == Self.statementAnonymousAccess(store, service))
                for roles in Self.roleSets {
                    let has = try await store.hasGrants(service: service, roles: roles)
                    #expect(has == (try await Self.statementHasGrants(store, service: service, roles: roles)), "\(service) \(roles)")
                    for table in Self.tables {
                        for action in TableAction.allCases {
                            let cached = try await store.grants(service: service, table: table, action: action, roles: roles)
                            let stated = try await Self.statementGrants(store, service: service, table: table, action: action, roles: roles)
                            #expect(Set(cached) == Set(stated), "\(service) \(table) \(action) \(roles)")
                        }
                    }
                }
            }
            #expect(store.accessSettings.loadCount == 1)

            // The answers themselves, beyond agreeing with the statements.
            #expect(try await store.anonymousAccess("cardealer") == .read)
            #expect(try await store.anonymousAccess("hockey") == AnonymousAccess.none)
            #expect(try await store.anonymousAccess("nosuch") == AnonymousAccess.none)
            #expect(try await store.grants(service: "hockey", table: "Equipment", action: .read, roles: ["brandrep"])
                == [TableGrant(role: "brandrep", service: "hockey", table: "Equipment", action: .read, rowFilter: "brand eq $claims.sub")])
            #expect(try await store.grants(service: "cardealer", table: "Person", action: .update, roles: ["coach", "stranger"])
                == [TableGrant(role: "coach", service: "cardealer", table: nil, action: .update)])
            // Both roles' grants, in role order: one without a filter (every row) and one with.
            #expect(try await store.grants(service: "hockey", table: "Teams", action: .read, roles: ["coach", "closer"])
                == [TableGrant(role: "closer", service: "hockey", table: "Teams", action: .read, rowFilter: "city eq 'Toronto'"),
                    TableGrant(role: "coach", service: "hockey", table: "Teams", action: .read)])
            #expect(try await store.grants(service: "hockey", table: "Teams", action: .delete, roles: ["closer"]).map(\.table) == [nil])
            #expect(try await store.grants(service: "hockey", table: "Teams", action: .read, roles: []).isEmpty)
            #expect(try await store.hasGrants(service: "speakeasy", roles: ["coach"]) == false)
            #expect(store.accessSettings.loadCount == 1)
        }
    }

    @Test("Writes through the store apply at once; another writer's within the maximum age", arguments: Backend.allCases)
    func staleness(_ backend: Backend) async throws {
        try await Self.withSystem(backend) { admin in
            // `admin` has a store of its own: to `store` it is another process writing the same tables.
            let store = AuthStore(system: admin.store.system, cacheMaxAge: .seconds(3600))
            #expect(try await store.anonymousAccess("hockey") == AnonymousAccess.none)
            try await admin.setAnonymousAccess(.read, service: "hockey")
            try await admin.grant(role: "coach", service: "hockey", table: "Teams", actions: [.read], rowFilter: nil)
            // Not seen yet: the snapshot is answered from, not the table.
            #expect(try await store.anonymousAccess("hockey") == AnonymousAccess.none)
            #expect(try await store.hasGrants(service: "hockey", roles: ["coach"]) == false)
            #expect(store.accessSettings.loadCount == 1)

            // Each write through the store itself is seen by the next question (with the other
            // writer's changes, read in the same load).
            try await store.putGrants([TableGrant(role: "coach", service: "hockey", table: "Players", action: .read)])
            #expect(try await store.anonymousAccess("hockey") == .read)
            #expect(try await store.grants(service: "hockey", table: "Players", action: .read, roles: ["coach"]).count == 1)
            #expect(try await store.hasGrants(service: "hockey", roles: ["coach"]))
            #expect(store.accessSettings.loadCount == 2)
            try await store.setAnonymousAccess("hockey", .none)
            #expect(try await store.anonymousAccess("hockey") == AnonymousAccess.none)
            #expect(try await store.removeGrants(role: "coach", service: "hockey", table: nil, actions: nil) == 2)
            #expect(try await store.hasGrants(service: "hockey", roles: ["coach"]) == false)
            #expect(store.accessSettings.loadCount == 4)

            // Copies of a store share its snapshot, as GrantPolicy's and /admin's do in a server.
            let copy = store
            try await copy.setAnonymousAccess("speakeasy", .none)
            #expect(try await store.anonymousAccess("speakeasy") == AnonymousAccess.none)

            // With a short maximum age, another writer's change is seen without any write here.
            let quick = AuthStore(system: admin.store.system, cacheMaxAge: .milliseconds(100))
            #expect(try await quick.anonymousAccess("cardealer") == .read)
            try await admin.setAnonymousAccess(.none, service: "cardealer")
            let deadline = ContinuousClock.now + .seconds(10)
            while try await quick.anonymousAccess("cardealer") == .read, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await quick.anonymousAccess("cardealer") == AnonymousAccess.none)
            #expect(quick.accessSettings.loadCount >= 2)
        }
    }

    @Test("Concurrent callers that find the snapshot missing wait for one load", arguments: Backend.allCases)
    func singleFlight(_ backend: Backend) async throws {
        try await Self.withSystem(backend) { admin in
            let store = AuthStore(system: admin.store.system, cacheMaxAge: .seconds(3600))
            for round in 1...3 {
                store.accessSettings.invalidate()
                let before = store.accessSettings.loadCount
                let answers = try await withThrowingTaskGroup(of: AnonymousAccess.self) { group in
                    for _ in 0..<64 {
                        group.addTask { try await store.anonymousAccess("cardealer") }
                    }
                    return try await group.reduce(into: [AnonymousAccess]()) { $0.append($1) }
                }
                #expect(answers == Array(repeating: .read, count: 64))
                #expect(store.accessSettings.loadCount == before + 1, "round \(round)")
            }
        }
    }

    @Test("A failed load throws to its callers; an expired snapshot is never answered from")
    func failedLoads() async throws {
        let failing = NIOLockedValueBox(true)
        let cache = AccessSettingsCache(maxAge: .milliseconds(50)) {
            struct Unreachable: Error {}
            if failing.withLockedValue({ $0 }) { throw Unreachable() }
            return AccessSettings(anonymous: ["cardealer": .read], grants: [])
        }
        await #expect(throws: (any Error).self) { try await cache.settings() }
        failing.withLockedValue { $0 = false }
        #expect(try await cache.settings().anonymousAccess("cardealer") == .read)
        failing.withLockedValue { $0 = true }
        try await Task.sleep(for: .milliseconds(120))
        await #expect(throws: (any Error).self) { try await cache.settings() }
        await #expect(throws: (any Error).self) { try await cache.settings() }
        #expect(cache.loadCount == 4)
    }

    @Test("A load that began before an invalidation answers its own callers only")
    func invalidationDuringLoad() async throws {
        let (firstGate, release) = AsyncStream<Void>.makeStream()
        let calls = NIOLockedValueBox(0)
        let cache = AccessSettingsCache(maxAge: .seconds(3600)) {
            let call = calls.withLockedValue { value -> Int in
                value += 1
                return value
            }
            if call == 1 {
                // The first load reads the old settings, then is held until the test lets it go.
                for await _ in firstGate { break }
                return AccessSettings(anonymous: ["hockey": .none], grants: [])
            }
            return AccessSettings(anonymous: ["hockey": .read], grants: [])
        }
        let early = Task { try await cache.settings().anonymousAccess("hockey") }
        while calls.withLockedValue({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(5)) }
        cache.invalidate()
        // A caller after the invalidation does not join the old load: it starts its own.
        #expect(try await cache.settings().anonymousAccess("hockey") == .read)
        release.yield()
        release.finish()
        #expect(try await early.value == AnonymousAccess.none)
        // The old load, finished last, did not replace the newer snapshot.
        #expect(try await cache.settings().anonymousAccess("hockey") == .read)
        #expect(cache.loadCount == 2)
    }

    // MARK: The statements GrantPolicy ran on every request before the snapshot, as the reference

    static func statementGrants(_ store: AuthStore, service: String, table: String, action: TableAction, roles: Set<String>) async throws -> [TableGrant] {
        guard !roles.isEmpty else { return [] }
        let sortedRoles = roles.sorted()
        let statement = SQLStatement(
            """
            SELECT "role", "service", "table_name", "action", "row_filter" FROM \(store.q("role_grants")) \
            WHERE "service" = \(bind: .string(service)) AND "action" = \(bind: .string(action.rawValue)) \
            AND ("table_name" = \(bind: .string(table)) OR "table_name" = \(bind: .string(AuthStore.every))) \
            AND "role" IN (\(SQL.binds(sortedRoles.map(ODataValue.string))))
            """, dialect: store.dialect)
        let rows = try await store.database.read { try await $0.query(statement, types: [.string, .string, .string, .string, .string]) }
        return rows.rows.map { row in
            let table = row[2].stringValue
            return TableGrant(role: row[0].stringValue ?? "", service: row[1].stringValue ?? "", table: table == AuthStore.every ? nil : table,
                              action: TableAction(rawValue: row[3].stringValue ?? "") ?? .read, rowFilter: row[4].stringValue)
        }
    }

    static func statementHasGrants(_ store: AuthStore, service: String, roles: Set<String>) async throws -> Bool {
        guard !roles.isEmpty else { return false }
        let sortedRoles = roles.sorted()
        let statement = SQLStatement(
            "SELECT 1 FROM \(store.q("role_grants")) WHERE \"service\" = \(bind: .string(service)) AND \"role\" IN (\(SQL.binds(sortedRoles.map(ODataValue.string))))",
            dialect: store.dialect)
        return try await !store.database.read { try await $0.query(statement) }.rows.isEmpty
    }

    static func statementAnonymousAccess(_ store: AuthStore, _ service: String) async throws -> AnonymousAccess {
        let statement = SQLStatement("SELECT \"anonymous\" FROM \(store.q("service_access")) WHERE \"service\" = \(bind: .string(service))", dialect: store.dialect)
        let rows = try await store.database.read { try await $0.query(statement, types: [.string]) }
        return rows.rows.first?[0].stringValue.flatMap(AnonymousAccess.init(rawValue:)) ?? .none
    }

    /// The demo's system database on `backend` (anonymous reads of cardealer and speakeasy), opened
    /// as the CLI opens it.
    static func withSystem(_ backend: Backend, _ body: @Sendable (Administration) async throws -> Void) async throws {
        try await PostgresSlots.run(backend) {
            let configuration = try await TestDatabases.shared.configuration(backend)
            defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
            try await Administration.with(configuration, logger: TestDatabases.logger, body)
        }
    }
}

extension AuthStore {
    /// Whether any of `roles` has any grant in `service`, from the cached settings.
    func hasGrants(service: String, roles: Set<String>) async throws -> Bool {
        try await !grants(service: service, roles: roles).isEmpty
    }
}
