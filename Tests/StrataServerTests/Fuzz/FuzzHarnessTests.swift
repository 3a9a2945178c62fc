import Foundation
import HummingbirdTesting
@testable import StrataServer
import Testing

/// The fuzz harness: generated `$filter`, `$sql`, JSON bodies and `$batch` requests against a
/// server on each database, for `STRATA_FUZZ_SECONDS` each (a few seconds by default; set it for a
/// long run). Any 5xx, any request that hangs, any 4xx without an OData error body fails the test,
/// naming the seed and the request.
@Suite("Fuzz harness")
struct FuzzHarnessTests {
    static func server(_ backend: Backend, _ body: @Sendable @escaping (any TestClientProtocol) async throws -> Void) async throws {
        try await withServer(backend, configure: { configuration in
            // Generated queries can be expensive; the limits answer them, as in production.
            configuration.statementTimeout = .seconds(5)
            configuration.maxQueriesPerCaller = 64
            // Every request here comes from one address (and carries the tests' Basic credentials):
            // the generated sign-ins would soon block that address, and with it the rest of the run.
            configuration.auth.maxFailuresPerAddress = 1_000_000
            configuration.auth.maxFailuresPerAccount = 1_000_000
        }) { client in try await body(client) }
    }

    @Test("$filter, $orderby, $top, $expand: no 5xx, no hang", arguments: Backend.allCases)
    func filters(_ backend: Backend) async throws {
        try await Self.server(backend) { client in
            var generator = FuzzFilterGenerator()
            let report = try await FuzzRun.run("filter \(backend)", seed: FuzzRun.seed(default: 0xF117_E4), client: client) { generator.request(&$0) }
            #expect(report.statuses[200, default: 0] > 0 && report.statuses[400, default: 0] > 0, "the corpus reaches both outcomes")
        }
    }

    @Test("$sql: no 5xx, no hang", arguments: Backend.allCases)
    func sql(_ backend: Backend) async throws {
        try await Self.server(backend) { client in
            let generator = FuzzSQLGenerator()
            let report = try await FuzzRun.run("sql \(backend)", seed: FuzzRun.seed(default: 0x5E1EC7), client: client) { generator.request(&$0) }
            #expect(report.statuses[200, default: 0] > 0 && report.statuses[400, default: 0] > 0, "the corpus reaches both outcomes")
        }
    }

    @Test("JSON bodies of writes, $changes, $sql and /auth/token: no 5xx, no hang", arguments: Backend.allCases)
    func jsonBodies(_ backend: Backend) async throws {
        try await Self.server(backend) { client in
            let generator = FuzzJSONGenerator()
            let report = try await FuzzRun.run("json \(backend)", seed: FuzzRun.seed(default: 0x150B0D), client: client) { generator.request(&$0) }
            #expect(report.statuses.keys.contains { $0 < 300 } && report.statuses[400, default: 0] > 0, "the corpus reaches both outcomes")
        }
    }

    @Test("$batch: no 5xx, no hang", arguments: Backend.allCases)
    func batches(_ backend: Backend) async throws {
        try await Self.server(backend) { client in
            let generator = FuzzBatchGenerator()
            let report = try await FuzzRun.run("batch \(backend)", seed: FuzzRun.seed(default: 0xBA7C4), client: client) { generator.request(&$0) }
            #expect(report.statuses[202, default: 0] > 0 && report.statuses[400, default: 0] > 0, "the corpus reaches both outcomes")
        }
    }
}
