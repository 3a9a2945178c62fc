import Foundation
import NIOConcurrencyHelpers
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// `$tables` of a 200,000-row table from a server process of its own, over a real socket: the
/// whole table arrives, and the server's memory grows far less than the answer (rows stream in
/// keyset chunks, they are never collected).
@Suite("Data tables: streaming")
struct DataTableStreamingTests {
    @Test("A 200,000-row table streams whole through $tables in bounded memory", arguments: Backend.allCases)
    func streaming(_ backend: Backend) async throws {
        let rows = 200_000
        let big = OperationsTests.bigRows(rows)
        let configuration = try await TestDatabases.shared.configuration(backend, demo: false)
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        try await TestDatabases.shared.provision("big", backend, into: configuration, scripts: big.scripts(backend))
        let arguments = StrataProcess.serveArguments(configuration)
        let server = try await StrataProcess.start(try StrataProcess.executable(), arguments: arguments)
        defer { server.kill() }
        // Warm up: the first request loads code and allocates pools.
        _ = try await RawHTTP.get(port: server.port, path: "/big/$tables/Row?$top=2000")
        let before = server.residentMemory
        let peak = NIOLockedValueBox(before)
        let started = ContinuousClock.now
        let result = try await RawHTTP.get(port: server.port, path: "/big/$tables/Row") { _ in
            let now = server.residentMemory
            peak.withLockedValue { $0 = max($0, now) }
        }
        let elapsed = ContinuousClock.now - started
        #expect(result.status == 200)
        // The last row closes the rows array and the table object: nothing was cut off.
        #expect(result.tail.hasSuffix(#"tempor incididunt ut labore"]]}"#), "\(result.tail)")
        // Every row is `[id,"row id lorem …"]`, over 100 bytes each.
        #expect(result.bytes > rows * 100, "\(result.bytes) bytes for \(rows) rows")
        let growth = peak.withLockedValue { $0 } - before
        // Collected whole, the answer alone would grow the server by its size and more (rows, then
        // bytes); streamed, it grew 1 MB when measured. Half the answer leaves room for a loaded
        // machine's slower reader and still fails if the rows are ever gathered.
        #expect(growth < result.bytes / 2, "memory grew \(growth / 1_000_000) MB while streaming \(result.bytes / 1_000_000) MB")
        print("measured: \(backend) $tables of \(rows) rows, \(result.bytes) bytes in \(elapsed), server memory grew \(growth / 1_000_000) MB")
    }
}
