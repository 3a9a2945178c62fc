import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// `$tables` with the change feed: `track=1`, `since=`, `wait=`, one token for several tables, and
/// deltas that follow each caller's rights (row filters, hidden columns, changed grants).
@Suite("Feed: $tables deltas and rights")
struct FeedTablesTests {
    /// A table object of a `$tables` answer by name.
    static func table(_ json: JSONValue, _ name: String) -> JSONValue? {
        if case .array(let tables)? = json[member: "tables"] { return tables.first { $0[member: "name"]?.stringValue == name } }
        return json[member: "name"]?.stringValue == name ? json : nil
    }

    static func rows(_ table: JSONValue?) -> [[JSONValue]] {
        guard case .array(let rows)? = table?[member: "rows"] else { return [] }
        return rows.compactMap { if case .array(let row) = $0 { row } else { nil } }
    }

    static func deleted(_ table: JSONValue?) -> [[JSONValue]] {
        guard case .array(let keys)? = table?[member: "deleted"] else { return [] }
        return keys.compactMap { if case .array(let key) = $0 { key } else { nil } }
    }

    static func fieldNames(_ table: JSONValue?) -> [String] {
        guard case .array(let fields)? = table?[member: "fields"] else { return [] }
        return fields.compactMap { $0[member: "name"]?.stringValue }
    }

    @Test("One token for two tables: changed rows and deleted keys of each, then a new token", arguments: Backend.allCases)
    func twoTables(_ backend: Backend) async throws {
        try await withServer(backend, demo: false, services: [FeedFixtures.service], configure: { FeedFixtures.track(&$0) }) { client in
            let first = try await client.execute(uri: "/feed/$tables?names=Item,Tag&track=1", method: .get)
            #expect(first.status == .ok)
            #expect(Self.rows(Self.table(first.json, "Item")).count == 4)
            let token = try #require(first.json[member: "token"]?.stringValue)
            #expect(try await client.execute(uri: "/feed/Tag", method: .post, headers: FeedFixtures.jsonHeaders,
                                             body: FeedFixtures.body(#"{"label":"green"}"#)).status == .created)
            #expect(try await client.execute(uri: "/feed/Item(2)", method: .delete).status == .noContent)
            #expect(try await client.execute(uri: "/feed/Tag(1)", method: .patch, headers: FeedFixtures.jsonHeaders,
                                             body: FeedFixtures.body(#"{"label":"crimson"}"#)).status == .noContent)
            let delta = try await client.execute(uri: "/feed/$tables?names=Item,Tag&since=\(token)", method: .get)
            #expect(delta.status == .ok)
            let items = Self.table(delta.json, "Item"), tags = Self.table(delta.json, "Tag")
            #expect(Self.rows(items).isEmpty)
            #expect(Self.deleted(items) == [[.number("2")]])
            #expect(Self.rows(tags).compactMap { $0.last?.stringValue }.sorted() == ["crimson", "green"])
            #expect(Self.deleted(tags).isEmpty)
            let next = try #require(delta.json[member: "token"]?.stringValue)
            let quiet = try await client.execute(uri: "/feed/$tables?names=Item,Tag&since=\(next)", method: .get)
            #expect(Self.rows(Self.table(quiet.json, "Item")).isEmpty && Self.rows(Self.table(quiet.json, "Tag")).isEmpty)
            // The single-table form carries its token in the table object; its token is another query's.
            let single = try await client.execute(uri: "/feed/$tables/Item?$filter=price%20gt%2050&track=1", method: .get)
            #expect(single.json[member: "token"]?.stringValue != nil)
            #expect(try await client.execute(uri: "/feed/$tables/Item?since=\(next)", method: .get).status == .gone)
            // Mistakes are 400s that say what to fix.
            for bad in ["/feed/$tables?names=Item&since=\(next)&track=1", "/feed/$tables?names=Item&track=2",
                        "/feed/$tables?names=Item,Tag&since=\(next)&wait=99"] {
                #expect(try await client.execute(uri: bad, method: .get).status == .badRequest, "\(bad)")
            }
        }
    }

    @Test("strata keys rotate --feed: new tokens are made with the new key, tokens made before still work", arguments: Backend.allCases)
    func rotateFeedKey(_ backend: Backend) async throws {
        try await withTrackedServer(backend) { server in
            let before = try #require(try await server.client.execute(uri: "/cardealer/$tables?names=Car&track=1", method: .get)
                .json[member: "token"]?.stringValue)
            let added = try await Administration.with(server.configuration, logger: TestDatabases.logger) { try await $0.rotateFeedKey() }
            // As a server does when it hears of the change (the announcement on PostgreSQL, a poll on SQLite).
            try await server.runtime.feed.keys.reload()
            let after = try #require(try await server.client.execute(uri: "/cardealer/$tables?names=Car&track=1", method: .get)
                .json[member: "token"]?.stringValue)
            #expect(Self.keyID(after) == added && Self.keyID(before) != added)
            _ = try await server.client.post("/cardealer/Car", #"{"make":"Rotated","model":"Key"}"#)
            for token in [before, after] {
                let delta = try await server.client.execute(uri: "/cardealer/$tables?names=Car&since=\(token)", method: .get)
                #expect(delta.status == .ok, "\(delta.text.prefix(200))")
                #expect(delta.text.contains("Rotated"))
            }
        }
    }

    /// The key id a feed token names (after its version byte).
    static func keyID(_ token: String) -> UInt32? {
        guard let bytes = Base64URL.decode(token), bytes.count > 5 else { return nil }
        return bytes[1 ... 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    @Test("wait= holds an empty delta until a change comes", arguments: Backend.allCases)
    func longPoll(_ backend: Backend) async throws {
        try await withServer(backend, demo: false, services: [FeedFixtures.service], configure: { FeedFixtures.track(&$0) }) { client in
            let token = try #require(try await client.execute(uri: "/feed/$tables?names=Tag&track=1", method: .get).json[member: "token"]?.stringValue)
            let started = ContinuousClock.now
            async let waited = client.execute(uri: "/feed/$tables?names=Tag&since=\(token)&wait=20", method: .get)
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await client.execute(uri: "/feed/Tag", method: .post, headers: FeedFixtures.jsonHeaders,
                                             body: FeedFixtures.body(#"{"label":"late"}"#)).status == .created)
            let answer = try await waited
            #expect(answer.status == .ok)
            #expect(Self.rows(Self.table(answer.json, "Tag")).compactMap { $0.last?.stringValue } == ["late"])
            #expect(ContinuousClock.now - started < .seconds(15))
            // With nothing to come, it answers an empty delta at the end of the wait.
            let next = try #require(answer.json[member: "token"]?.stringValue)
            let quiet = try await client.execute(uri: "/feed/$tables?names=Tag&since=\(next)&wait=1", method: .get)
            #expect(quiet.status == .ok)
            #expect(Self.rows(Self.table(quiet.json, "Tag")).isEmpty)
        }
    }

    static func rightsSetup(_ admin: Administration) async throws {
        // Test services are readable by anyone; here only the grants decide.
        try await admin.setAnonymousAccess(.none, service: FeedFixtures.serviceName)
        for name in ["ann", "bob"] {
            try await admin.addUser(name, password: TestAccounts.password(name), roles: [RoleAssignment(role: "owner", service: FeedFixtures.serviceName)])
        }
        try await admin.grant(role: "owner", service: FeedFixtures.serviceName, table: "Item", actions: [.read], rowFilter: "owner eq $claims.sub")
    }

    @Test("A row whose owner changed is a deletion for the old owner and an insertion for the new; hidden columns never appear",
          arguments: Backend.allCases)
    func moveInMoveOut(_ backend: Backend) async throws {
        try await withAuthServer(backend, services: [FeedFixtures.service], configure: { FeedFixtures.track(&$0) }, setup: Self.rightsSetup) { client, _ in
            let ann = try await client.execute(uri: "/feed/$tables?names=Item&track=1", method: .get, headers: basic("ann"))
            #expect(ann.status == .ok, "\(ann.text)")
            #expect(Self.rows(Self.table(ann.json, "Item")).count == 2)
            #expect(!Self.fieldNames(Self.table(ann.json, "Item")).contains("secret"))
            let annToken = try #require(ann.json[member: "token"]?.stringValue)
            let bobToken = try #require(try await client.execute(uri: "/feed/$tables?names=Item&track=1", method: .get, headers: basic("bob"))
                .json[member: "token"]?.stringValue)
            // Ann's token is hers: Bob's rights differ, so it is refused for him.
            #expect(try await client.execute(uri: "/feed/$tables?names=Item&since=\(annToken)", method: .get, headers: basic("bob")).status == .gone)

            let moved = try await client.execute(uri: "/feed/Item(1)", method: .patch,
                                                 headers: FeedFixtures.jsonHeaders.adding(basic(TestAccounts.admin)),
                                                 body: FeedFixtures.body(#"{"owner":"bob","secret":"changed"}"#))
            #expect(moved.status == .noContent)
            let annDelta = try await client.execute(uri: "/feed/$tables?names=Item&since=\(annToken)", method: .get, headers: basic("ann"))
            #expect(Self.rows(Self.table(annDelta.json, "Item")).isEmpty)
            #expect(Self.deleted(Self.table(annDelta.json, "Item")) == [[.number("1")]])
            let bobDelta = try await client.execute(uri: "/feed/$tables?names=Item&since=\(bobToken)", method: .get, headers: basic("bob"))
            let bobRows = Self.rows(Self.table(bobDelta.json, "Item"))
            #expect(bobRows.count == 1 && bobRows.first?.first == .number("1"))
            #expect(!Self.fieldNames(Self.table(bobDelta.json, "Item")).contains("secret"))
            #expect(!bobDelta.text.contains("changed"), "the hidden column's value never appears")
        }
    }

    @Test("A caller whose rights widened since the token gets 410, never a delta that misses rows", arguments: Backend.allCases)
    func rightsChanged(_ backend: Backend) async throws {
        try await withAuthServer(backend, services: [FeedFixtures.service], configure: { FeedFixtures.track(&$0) }, setup: Self.rightsSetup) { client, configuration in
            let token = try #require(try await client.execute(uri: "/feed/$tables?names=Item&track=1", method: .get, headers: basic("ann"))
                .json[member: "token"]?.stringValue)
            try await Administration.with(configuration, logger: TestDatabases.logger) { admin in
                try await admin.grant(role: "editor", service: FeedFixtures.serviceName, table: "Item", actions: [.read], rowFilter: nil)
                _ = try await admin.grantRole(RoleAssignment(role: "editor", service: FeedFixtures.serviceName), to: "ann")
            }
            let gone = try await eventually(within: .seconds(10)) {
                try await client.execute(uri: "/feed/$tables?names=Item&since=\(token)", method: .get, headers: basic("ann")).status == .gone
            }
            #expect(gone)
        }
    }
}
