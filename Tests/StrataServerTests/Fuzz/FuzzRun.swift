import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StrataCore
import StrataDemo
import Testing

/// One generated request.
struct FuzzRequest: Sendable {
    var method: HTTPRequest.Method
    var uri: String
    var headers: HTTPFields = [:]
    var body: [UInt8]?

    var summary: String {
        let text = body.map { String(decoding: $0.prefix(400), as: UTF8.self) } ?? ""
        return "\(method.rawValue) \(uri.prefix(400)) \(text)"
    }
}

/// Runs a generator against a server for a while and fails on any 5xx, on a request that does not
/// answer within ``hangLimit``, and on a 4xx without an OData error body.
///
/// Bounded and seeded: `STRATA_FUZZ_SECONDS` (default 3) per target and database, and
/// `STRATA_FUZZ_SEED` (default a fixed seed per target), so that a failure reproduces with the
/// seed it prints. `STRATA_FUZZ_SECONDS=600 swift test --filter Fuzz` is the long run.
enum FuzzRun {
    static var duration: Duration {
        .seconds(ProcessInfo.processInfo.environment["STRATA_FUZZ_SECONDS"].flatMap(Double.init) ?? 3)
    }

    static func seed(default fallback: UInt64) -> UInt64 {
        ProcessInfo.processInfo.environment["STRATA_FUZZ_SEED"].flatMap { UInt64($0) } ?? fallback
    }

    static let hangLimit: Duration = .seconds(30)
    /// Whatever the time, at least this many requests, so that a slow machine still covers ground.
    static let minimumRequests = 60

    struct Report: CustomStringConvertible {
        var requests = 0
        var statuses: [Int: Int] = [:]
        var failures: [String] = []
        var description: String {
            "\(requests) requests, statuses \(statuses.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))"
        }
    }

    /// `check` names what else is wrong with an answer (nil: nothing).
    static func run(_ name: String, seed: UInt64, client: any TestClientProtocol,
                    check: (FuzzRequest, TestResponse) -> String? = { _, _ in nil },
                    generate: (inout SplitMix64) -> FuzzRequest) async throws -> Report {
        var random = SplitMix64(seed: seed)
        var report = Report()
        let end = ContinuousClock.now + duration
        while ContinuousClock.now < end || report.requests < minimumRequests {
            let request = generate(&random)
            report.requests += 1
            guard let response = try await answer(request, client) else {
                report.failures.append("no answer within \(hangLimit): \(request.summary)")
                break
            }
            let status = Int(response.status.code)
            report.statuses[status, default: 0] += 1
            if status >= 500 {
                report.failures.append("\(status) \(String(decoding: response.body.readableBytesView.prefix(300), as: UTF8.self)) ← \(request.summary)")
            } else if status >= 400, (try? JSONValue.parse(Array(response.body.readableBytesView)))?["error"] == nil, request.method != .head {
                report.failures.append("\(status) without an OData error body ← \(request.summary)")
            } else if let problem = check(request, response) {
                report.failures.append("\(problem) ← \(request.summary)")
            }
            if report.failures.count >= 5 { break }
        }
        print("Fuzz \(name) (seed \(seed)): \(report)")
        for failure in report.failures { Issue.record("fuzz \(name), seed \(seed): \(failure)") }
        return report
    }

    /// The response, or nil when none came within ``hangLimit``.
    private static func answer(_ request: FuzzRequest, _ client: any TestClientProtocol) async throws -> TestResponse? {
        try await withThrowingTaskGroup(of: TestResponse?.self) { group in
            group.addTask {
                try await client.execute(uri: request.uri, method: request.method, headers: request.headers,
                                         body: request.body.map { ByteBuffer(bytes: $0) })
            }
            group.addTask {
                try await Task.sleep(for: hangLimit)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}

extension SplitMix64 {
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
}
