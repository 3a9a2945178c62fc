import Foundation
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import StrataSQL
import Testing

/// The throttle counted in PostgreSQL answers exactly as the one in memory, and keeps its table small.
@Suite("Auth: throttle in the system database")
struct SharedLoginThrottleTests {
    static var settings: AuthSettings {
        var settings = AuthSettings(maxFailuresPerAccount: 3, maxFailuresPerAddress: 5, failureWindow: 600)
        settings.accountDelay = .milliseconds(250)
        settings.maxAccountDelay = .seconds(4)
        return settings
    }

    enum Step {
        case fail(String, String)
        case succeed(String, String)
        case check(String, String)
        case wait(TimeInterval)
    }

    /// Failures and successes over two accounts and three addresses, with time passing: every
    /// rule (address, account from an address, account from anywhere, the window) has its turn.
    static let script: [Step] = [
        .fail("ann", "10.0.0.1"), .check("ann", "10.0.0.1"), .fail("ann", "10.0.0.1"), .wait(30), .fail("ann", "10.0.0.1"),
        .check("ann", "10.0.0.1"), .check("ann", "10.0.0.2"), .fail("ann", "10.0.0.2"), .check("ann", "10.0.0.3"),
        .succeed("ann", "10.0.0.2"), .check("ann", "10.0.0.2"), .fail("bob", "10.0.0.2"), .fail("cy", "10.0.0.2"),
        .fail("dee", "10.0.0.2"), .check("eve", "10.0.0.2"), .wait(100), .fail("eve", "10.0.0.2"), .check("eve", "10.0.0.2"),
        .check("bob", "10.0.0.3"), .wait(480), .check("ann", "10.0.0.1"), .wait(30), .check("ann", "10.0.0.1"),
        .check("eve", "10.0.0.2"), .wait(200), .check("eve", "10.0.0.2"), .check("ann", "10.0.0.3"),
    ]

    /// What `throttle` answers to each check of the script.
    static func run(_ throttle: any LoginThrottling) async throws -> [String] {
        var now = Date(timeIntervalSince1970: 1_750_000_000)
        var answers: [String] = []
        for step in script {
            switch step {
            case .fail(let account, let address): try await throttle.recordFailure(account: account, address: address, now: now)
            case .succeed(let account, let address): try await throttle.recordSuccess(account: account, address: address)
            case .wait(let seconds): now.addTimeInterval(seconds)
            case .check(let account, let address):
                do {
                    let delay = try await throttle.check(account: account, address: address, now: now)
                    answers.append("\(account)@\(address): wait \(delay)")
                } catch let error as ThrottledError {
                    answers.append("\(account)@\(address): 429 retry after \(error.retryAfter)")
                }
            }
            now.addTimeInterval(1)
        }
        return answers
    }

    @Test("The same failures get the same answers in PostgreSQL as in memory")
    func sameAnswers() async throws {
        try await AuthAccessSettingsTests.withSystem(.postgres) { admin in
            let memory = try await Self.run(LoginThrottle(settings: Self.settings))
            let shared = try await Self.run(SharedLoginThrottle(system: admin.store.system, settings: Self.settings))
            #expect(shared == memory)
            // The script reaches every rule.
            #expect(memory.contains { $0.contains("429") } && memory.contains { $0.contains("wait 0.25 seconds") }
                    && memory.contains { $0.hasSuffix("wait 0.0 seconds") }, "\(memory)")
        }
    }

    @Test("Recording a failure removes its keys' expired rows; a prune removes others' in bounded batches")
    func pruning() async throws {
        try await AuthAccessSettingsTests.withSystem(.postgres) { admin in
            let system = admin.store.system
            let count: @Sendable () async throws -> Int64 = {
                try await system.database.read { connection in
                    try await connection.query("SELECT count(*) FROM \(system.table("auth_failures"))", types: [.int64])
                }.rows.first?.first?.integerValue ?? -1
            }
            let start = Date(timeIntervalSince1970: 1_750_000_000)
            let first = SharedLoginThrottle(system: system, settings: Self.settings)
            for index in 0..<4 {
                try await first.recordFailure(account: "ann", address: "10.0.0.\(index)", now: start)
            }
            // Address, account-and-address and account rows of each failure.
            #expect(try await count() == 12)
            // Past the window: ann's own expired rows go when she fails again (this throttle pruned
            // already, at its first failure, so no prune runs now).
            let later = start.addingTimeInterval(601)
            try await first.recordFailure(account: "ann", address: "10.0.0.0", now: later)
            // ann's 4 account rows and 10.0.0.0's address and pair rows went; 3 new rows came.
            #expect(try await count() == 12 - 4 - 2 + 3)
            // Another server's first failure prunes every expired row of any key.
            let second = SharedLoginThrottle(system: system, settings: Self.settings)
            try await second.recordFailure(account: "bob", address: "10.0.0.9", now: later)
            #expect(try await count() == 6)
        }
    }
}
