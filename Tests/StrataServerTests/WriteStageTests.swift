import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
@testable import StrataCore
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
import Testing

/// The write's stages hand each other values: Authorization decides every right a write needs
/// (from the URL, then from the parsed body) and Execution only looks them up.
@Suite("Writes: the rights a write needs, decided before it runs")
struct WriteStageTests {
    /// Records what it is asked, and refuses one action on one table.
    final class RecordingPolicy: AccessPolicy {
        let refused: (TableAction, String)?
        let asked = NIOLockedValueBox<[String]>([])
        init(refusing refused: (TableAction, String)? = nil) { self.refused = refused }

        func authorize(_ action: TableAction, table: String, in service: ODataService, principal: Principal?) async throws -> RowAccess {
            asked.withLockedValue { $0.append("\(action) \(table)") }
            if let refused, refused.0 == action, refused.1 == table {
                throw ODataError.forbidden("You may not \(action) \(table).")
            }
            return .unrestricted
        }
    }

    static let schema = """
        CREATE TABLE "Parent" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL);
        CREATE TABLE "Child" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL,
                              "parentID" INTEGER REFERENCES "Parent" ("id"));
        INSERT INTO "Parent" VALUES (1, 'p');
        INSERT INTO "Child" VALUES (1, 'c', NULL);
        """

    /// A service on a fresh SQLite file with two related tables.
    static func withService<T>(_ body: (ODataService) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-stages-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await PythonSQLite.execute(directory.appendingPathComponent("family.sqlite").path, schema)
        let store = try await SQLiteServiceStore.open(directory: directory, singleFile: nil, counter: .none, logger: TestDatabases.logger)
        do {
            let storage = try #require(try await store.discover().first { $0.name == "family" })
            let tables = try await storage.database.read { [storage] in try await storage.catalogReader.readTables($0) }
            let catalog = try ModelBuilder(serviceName: "family", namespace: "family", logger: TestDatabases.logger).build(tables)
            let result = try await body(ODataService(storage: storage, catalog: catalog, settings: ServiceSettings()))
            await store.close()
            return result
        } catch {
            await store.close()
            throw error
        }
    }

    static func call(_ service: ODataService, _ method: HTTPRequest.Method, _ path: String) throws -> ODataCall {
        let settings = RequestSettings(pageSize: 100, queryLimits: QueryLimits(), sqlRowLimit: 1000, sqlCrossJoinLimit: 1000,
                                       maxExpandedEntities: 1000, maxBufferedResponse: 1 << 20)
        let principal = Principal(subject: "writer", roles: ["writer"], serviceRoles: [:], claims: [:], method: .token)
        return ODataCall(settings: settings, logger: TestDatabases.logger, service: service,
                         url: try ODataRequestURL(rawPath: "/family/" + path, rawQuery: nil), method: method,
                         headers: [.contentType: "application/json"], version: .v2,
                         serviceRoot: "http://localhost/family/", principal: principal)
    }

    static func resolve(_ call: ODataCall) throws -> ResolvedPath {
        try PathResolver(model: call.service.model).resolve(call.url.path)
    }

    static func navigation(_ service: ODataService, from set: String) throws -> String {
        let type = try #require(service.model.entityType(named: set))
        return try #require(type.navigationProperties.first).name
    }

    @Test("A $links change asks for the right on the side that holds the foreign key, from the URL, before any body")
    func linksDecidedFromTheURL() async throws {
        try await Self.withService { service in
            let children = try Self.navigation(service, from: "Parent")
            // The children hold the foreign key: linking one to a parent updates the child.
            let policy = RecordingPolicy(refusing: (.update, "Child"))
            let call = try Self.call(service, .post, "Parent(1)/$links/\(children)")
            let authorizer = Authorizer(policy: policy, call: call)
            await #expect(throws: ODataError.self) { try await authorizer.access(toWrite: try Self.resolve(call), method: .post) }
            #expect(policy.asked.withLockedValue { $0 } == ["update Child"])

            let parent = try Self.navigation(service, from: "Child")
            let open = RecordingPolicy()
            let put = try Self.call(service, .put, "Child(1)/$links/\(parent)")
            let access = try await Authorizer(policy: open, call: put).access(toWrite: try Self.resolve(put), method: .put)
            #expect(open.asked.withLockedValue { $0 } == ["update Child"])
            _ = try access.rights(.update, "Child")
        }
    }

    @Test("A deep insert's other tables are asked once the body is parsed, each action once; an undecided right is refused, never assumed")
    func deepInsertDecidedFromTheBody() async throws {
        try await Self.withService { service in
            let children = try Self.navigation(service, from: "Parent")
            let policy = RecordingPolicy()
            let call = try Self.call(service, .post, "Parent")
            let path = try Self.resolve(call)
            let authorizer = Authorizer(policy: policy, call: call)
            let upFront = try await authorizer.access(toWrite: path, method: .post)
            #expect(policy.asked.withLockedValue { $0 } == ["insert Parent"])

            let body = #"{"name":"new","\#(children)":[{"name":"a"},{"name":"b"},{"__metadata":{"uri":"Child(1)"}}]}"#
            let request = try WriteRequest.parse(call, path, body: Array(body.utf8),
                                                 references: ServiceRelativeURL(serviceName: "family", serviceRoot: call.serviceRoot))
            #expect(request.references["Child(1)"]?.target.set.name == "Child")
            let access = try await upFront.including(request)
            // Two new children ask once; the linked child takes the new parent's key: an update.
            #expect(policy.asked.withLockedValue { $0 } == ["insert Parent", "insert Child", "update Child"])
            _ = try access.rights(.insert, "Child")
            _ = try access.rights(.update, "Child")
            #expect(throws: ODataError.self) { try access.rights(.delete, "Child") }

            // Refused on a related table: the refusal comes from Authorization, before Execution.
            let strict = RecordingPolicy(refusing: (.insert, "Child"))
            let refused = try await Authorizer(policy: strict, call: call).access(toWrite: path, method: .post)
            await #expect(throws: ODataError.self) { try await refused.including(request) }
        }
    }
}
