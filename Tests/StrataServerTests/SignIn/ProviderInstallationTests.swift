import Synchronization
import Testing

/// The OpenID Connect provider's virtualenv is made by the first test that needs it; the tests on
/// both databases start at once, and on a fresh machine a second installation replaced the first
/// one's directory under it (`ModuleNotFoundError: No module named 'django'`).
@Suite("Test provider installation")
struct ProviderInstallationTests {
    @Test("Callers that arrive together share one run of the work")
    func concurrentCallersShareOneRun() async throws {
        let runs = Mutex(0)
        let once = OnceInFlight {
            runs.withLock { $0 += 1 }
            try await Task.sleep(for: .milliseconds(200))
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { try await once.run() } }
            try await group.waitForAll()
        }
        try await once.run()
        #expect(runs.withLock { $0 } == 1)
    }

    @Test("A failed run is not remembered: the next caller runs the work again")
    func failureIsRetried() async throws {
        struct Refused: Error {}
        let runs = Mutex(0)
        let once = OnceInFlight {
            let run = runs.withLock { $0 += 1; return $0 }
            if run == 1 { throw Refused() }
        }
        await #expect(throws: Refused.self) { try await once.run() }
        try await once.run()
        try await once.run()
        #expect(runs.withLock { $0 } == 2)
    }
}
