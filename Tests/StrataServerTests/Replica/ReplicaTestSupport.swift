import Foundation
@testable import StrataClient
import StrataCore
import Testing

/// A replica of cardealer's tables in a fresh directory, against a live server's connection.
struct ReplicaFixture: Sendable {
    let connection: Connection
    let directory: URL

    init(_ connection: Connection, name: String = "replica") {
        self.connection = connection
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
    }

    var adapter: RemoteDataAdapter { RemoteDataAdapter(connection: connection, service: "cardealer") }

    static let tables = [ReplicaTable("Person"), ReplicaTable("Car")]

    func open(_ tables: [ReplicaTable] = Self.tables) async throws -> Replica {
        try await Replica.open(at: directory, adapter: adapter, tables: tables)
    }

    /// The server's rows of a table with `filter`, by another client.
    func serverRows(_ table: String, where filter: String) async throws -> [DataTableRow] {
        try await adapter.table(table, where: filter).rows
    }

    /// An edit by another client: sets `field` of the row with this key.
    func serverUpdate(_ table: String, keyField: String, _ key: Int, set field: String, to value: ODataValue) async throws {
        var rows = try await adapter.table(table, where: "\(keyField) eq \(key)")
        let id = try #require(rows.rows.first).id
        try rows.update(id) { try $0.set(field, to: value) }
        let summary = try await adapter.applyChanges(&rows)
        #expect(summary.succeeded, "\(summary.response.results)")
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Runs `strata` and kills it with SIGKILL after `delay` (unless it ended before).
func runKilled(_ strata: String, _ arguments: [String], _ environment: [String: String], after delay: Duration) async throws {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    spawnClosesDescriptors(from: 3, &actions)
    let pid = try spawnChild(strata, arguments, environment: environment, searchingPath: false, &actions)
    let deadline = ContinuousClock.now + delay
    var status: Int32 = 0
    while ContinuousClock.now < deadline {
        if waitpid(pid, &status, WNOHANG) == pid { return }
        try await Task.sleep(for: .milliseconds(2))
    }
    kill(pid, SIGKILL)
    while waitpid(pid, &status, WNOHANG) == 0 { try await Task.sleep(for: .milliseconds(2)) }
}
