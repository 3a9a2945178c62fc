import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOConcurrencyHelpers
import StrataCore
import Testing

/// Writers that post people through a port until told to stop, while a failure is staged: what was
/// acknowledged, every status, and when the first write sent after the failure was acknowledged.
struct WriteLoad {
    struct Outcome: Sendable {
        var acknowledged: [String] = []
        var statuses: [Int: Int] = [:]
        /// 503s without `Retry-After` or without an OData error body.
        var unavailableWithoutRetryAfter = 0
        var firstAcknowledgedAfterFailure: ContinuousClock.Instant?
    }

    /// Runs `writers` writers through `port` and `stage` beside them: `stage` waits for the load
    /// (``waitForAcknowledged(_:)``), causes the failure, calls ``failed()``, and returns when the
    /// writers may stop (``waitForResumption(within:)``).
    static func run(_ servers: StandbyServers, port: Int, lastName: String, writers: Int = 4,
                    stage: @escaping @Sendable (WriteLoad) async throws -> Void) async throws -> (Outcome, ContinuousClock.Instant?) {
        let load = WriteLoad()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    var index = 0
                    while !load.stop.withLockedValue({ $0 }) {
                        let name = "\(lastName)-\(writer)-\(index)"
                        index += 1
                        let sent = ContinuousClock.now
                        let result = try await servers.postPerson(port: port, firstName: name, lastName: lastName)
                        load.outcome.withLockedValue { outcome in
                            outcome.statuses[result.status, default: 0] += 1
                            if result.status == 201 {
                                outcome.acknowledged.append(name)
                                if let failed = load.failedAt.withLockedValue({ $0 }), sent > failed, outcome.firstAcknowledgedAfterFailure == nil {
                                    outcome.firstAcknowledgedAfterFailure = .now
                                }
                            }
                            if result.status == 503 {
                                let body = (try? JSONValue.parse(Array(result.response.text.utf8)))?["error"]
                                if result.response.headers[.retryAfter] == nil || body == nil { outcome.unavailableWithoutRetryAfter += 1 }
                            }
                        }
                        if result.status != 201 { try await Task.sleep(for: .milliseconds(50)) }
                    }
                }
            }
            group.addTask {
                defer { load.stop.withLockedValue { $0 = true } }
                try await stage(load)
            }
            try await group.waitForAll()
        }
        return (load.outcome.withLockedValue { $0 }, load.failedAt.withLockedValue { $0 })
    }

    let outcome = NIOLockedValueBox(Outcome())
    let failedAt = NIOLockedValueBox<ContinuousClock.Instant?>(nil)
    let stop = NIOLockedValueBox(false)

    func waitForAcknowledged(_ count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while outcome.withLockedValue({ $0.acknowledged.count }) < count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    func failed() {
        failedAt.withLockedValue { $0 = .now }
    }

    /// Waits until a write sent after the failure was acknowledged (or `limit` passed), then a second more.
    func waitForResumption(within limit: Duration) async throws {
        let deadline = ContinuousClock.now + limit
        while outcome.withLockedValue({ $0.firstAcknowledgedAfterFailure }) == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .seconds(1))
    }

    /// The expectations every failover shares: resumed within `limit`, only 201 and 503 (with
    /// Retry-After), every acknowledged write present exactly once in `names`.
    static func expectNoLoss(_ outcome: Outcome, failedAt: ContinuousClock.Instant?, within limit: Duration, names: [String]) throws {
        let failed = try #require(failedAt)
        let resumed = try #require(outcome.firstAcknowledgedAfterFailure, "writes resumed after the failover: \(outcome.statuses)")
        #expect(resumed - failed < limit, "writes resumed \(resumed - failed) after the failure")
        #expect(Set(outcome.statuses.keys).isSubset(of: [201, 503]), "only 201 and 503 (never 500, never a wrong answer): \(outcome.statuses)")
        #expect(outcome.unavailableWithoutRetryAfter == 0, "every 503 has Retry-After and an OData error body")
        let missing = Set(outcome.acknowledged).subtracting(names)
        #expect(missing.isEmpty, "acknowledged writes lost: \(missing.sorted())")
        #expect(names.count == Set(names).count, "a write was applied twice")
    }
}
