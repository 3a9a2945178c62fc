import Foundation
import HTTPTypes
import HummingbirdTesting
@testable import StrataServer
import Testing

/// `strata_db_pool_wait_seconds`: how long leases waited for a pooled connection — PostgreSQL's
/// pool, SQLite's readers, scanners and writer — which the console's Live screen summarizes as
/// "pool waits".
@Suite("Metrics: pool waits")
struct PoolWaitMetricTests {
    /// The value of `name` (no labels) in a Prometheus exposition.
    static func value(_ name: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    @Test("Every lease of a pooled connection is timed", arguments: Backend.allCases)
    func poolWaits(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let first = try await client.get("/metrics").text
            for _ in 0..<3 { #expect(try await client.get("/cardealer/Person(1)").status == .ok) }
            let text = try await client.get("/metrics").text
            #expect(text.contains("# TYPE strata_db_pool_wait_seconds histogram"))
            #expect(text.contains(#"strata_db_pool_wait_seconds_bucket{le="+Inf"}"#))
            let before = Self.value("strata_db_pool_wait_seconds_count", in: first) ?? 0
            let after = try #require(Self.value("strata_db_pool_wait_seconds_count", in: text))
            #expect(after >= before + 3, "\(before) → \(after)")
            let sum = try #require(Self.value("strata_db_pool_wait_seconds_sum", in: text))
            #expect(sum >= 0 && sum < after * 10)
        }
    }
}
