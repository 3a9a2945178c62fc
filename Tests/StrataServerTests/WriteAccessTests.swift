import Foundation
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import ServiceLifecycle
@testable import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// Row-level access rules on writes: a rule's filter is checked on the row before it changes and
/// on the row as stored, inside the write's transaction.
@Suite("Write access rules")
struct WriteAccessTests {
    /// Changes to ledger counters are allowed only while their value stays under 100.
    struct SmallCountersPolicy: AccessPolicy {
        func authorize(_ action: TableAction, table: String, in service: ODataService, principal: Principal?) async throws -> RowAccess {
            guard service.name == LedgerService.name, table == "Counters", action != .read,
                  let type = service.model.entityType(named: "Counters"),
                  let filter = try QueryOptions(parsing: "$filter=value lt 100").filter else { return .unrestricted }
            return RowAccess(filter: try QueryBinder(model: service.model).bindFilter(filter, on: type))
        }
    }

    @Test("Rows outside the rule are refused with 403 and nothing changes; rows inside it change", arguments: Backend.allCases)
    func rowRules(_ backend: Backend) async throws {
        try await withPolicyServer(backend, policy: SmallCountersPolicy()) { client in
            let state = ["/ledger/Counters(1)", "/ledger/Counters(2)", "/ledger/Counters/$count"]
            #expect(try await client.merge("/ledger/Counters(1)", #"{"value":50}"#).status == .noContent)
            try await client.expectRefused(.forbidden, unchanged: state) {
                try await client.merge("/ledger/Counters(1)", #"{"value":500}"#)
            }
            try await client.expectRefused(.forbidden, unchanged: state) {
                try await client.merge("/ledger/Counters(2)", #"{"value":5}"#)
            }
            try await client.expectRefused(.forbidden, unchanged: state) {
                try await client.delete("/ledger/Counters(2)")
            }
            try await client.expectRefused(.forbidden, unchanged: state) {
                try await client.post("/ledger/Counters", #"{"name":"large","value":100}"#)
            }
            #expect(try await client.post("/ledger/Counters", #"{"name":"small","value":99}"#).status == .created)
            // In a change set, a refused row rolls back the changes before it.
            let answer = try BatchAnswer(try await client.batch(BatchBody(items: [.changeSet([
                .init(method: "MERGE", url: "Counters(1)", body: #"{"value":1}"#),
                .init(method: "MERGE", url: "Counters(2)", body: #"{"value":2}"#),
            ])]), service: LedgerService.name))
            #expect(answer.parts.map(\.status) == [403])
            #expect(try await client.get("/ledger/Counters(1)").json["d"]["value"] == .number("50"))
        }
    }
}

/// A server like `buildApplication` makes, with the given access policy.
func withPolicyServer<T: Sendable>(
    _ backend: Backend, policy: any AccessPolicy, _ test: @Sendable (any TestClientProtocol) async throws -> T
) async throws -> T {
    let configuration = try await TestDatabases.shared.configuration(backend)
    defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
    try await prepareLedger(configuration, backend: backend, requireIfMatch: [])
    let logger = TestDatabases.logger
    var services: [any Service] = []
    let store: any ServiceStore
    if case .postgres(let location)? = configuration.database {
        let client = PostgresClient(configuration: location.clientConfiguration, backgroundLogger: logger)
        services.append(client)
        store = PostgresServiceStore(client: client, counter: .none, logger: logger)
    } else {
        store = try await SQLiteServiceStore.open(directory: URL(fileURLWithPath: configuration.dataDirectory), singleFile: nil,
                                                  counter: .none, logger: logger)
    }
    let runtime = StrataRuntime(configuration: configuration, store: store, metrics: StrataMetrics(), logger: logger, accessPolicy: policy)
    services.append(RuntimeShutdown(runtime: runtime))
    var app = Application(router: Routes.responder(runtime: runtime), services: services, logger: logger)
    app.beforeServerStarts { try await runtime.start() }
    return try await app.test(.router) { client in try await test(client) }
}
