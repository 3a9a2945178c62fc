import Synchronization

/// How many scans each caller may run at once, so that no caller can hold every connection or
/// thread kept for scans, however many requests it sends.
///
/// A caller (an account, or for anonymous requests a client address) runs at most `perCaller`
/// scan statements at a time; further ones wait in line behind that caller's own, and once
/// `queuePerCaller` of them wait, more are refused (`StorageError.overloaded`, a 429). One caller's
/// flood therefore delays only that caller.
package final class ScanAdmission: Sendable {
    let perCaller: Int
    let queuePerCaller: Int
    /// Waiting scans per caller, as a multiple of those it may run: enough for an app that loads a
    /// screen's lists at once, or a few people behind one address, without refusals.
    package static let queueFactor = 16
    private let callers = Mutex<[String: Caller]>([:])

    private struct Caller {
        var running = 0
        var waiting: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    }
    private let nextWaiter = Mutex(0)

    package init(perCaller: Int, queuePerCaller: Int) {
        self.perCaller = max(1, perCaller)
        self.queuePerCaller = max(0, queuePerCaller)
    }

    func run<T>(for caller: String, _ body: () async throws -> T) async throws -> T {
        try await enter(caller)
        defer { leave(caller) }
        return try await body()
    }

    private enum Entry {
        case admitted, wait, refused
    }

    private func enter(_ caller: String) async throws(StorageError) {
        let entry: Entry = callers.withLock { callers in
            var state = callers[caller, default: Caller()]
            defer { callers[caller] = state }
            if state.running < perCaller {
                state.running += 1
                return .admitted
            }
            return state.waiting.count < queuePerCaller ? .wait : .refused
        }
        switch entry {
        case .admitted: return
        case .refused: throw StorageError.overloaded(perCaller: perCaller)
        case .wait: break
        }
        // A waiting scan whose task is cancelled (its request abandoned) leaves the line at once.
        let id = nextWaiter.withLock { id in
            id += 1
            return id
        }
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let admitted = callers.withLock { callers in
                        var state = callers[caller, default: Caller()]
                        defer { callers[caller] = state }
                        if state.running < perCaller {
                            state.running += 1
                            return true
                        }
                        state.waiting.append((id, continuation))
                        return false
                    }
                    if admitted { continuation.resume() }
                }
            } onCancel: {
                let waiter = callers.withLock { callers -> CheckedContinuation<Void, any Error>? in
                    guard var state = callers[caller], let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                    let waiter = state.waiting.remove(at: index).continuation
                    callers[caller] = state
                    return waiter
                }
                waiter?.resume(throwing: CancellationError())
            }
        } catch {
            throw StorageError.cancelled
        }
    }

    private func leave(_ caller: String) {
        let next: CheckedContinuation<Void, any Error>? = callers.withLock { callers in
            guard var state = callers[caller] else { return nil }
            if !state.waiting.isEmpty {
                // The place passes straight to the caller's next scan.
                let next = state.waiting.removeFirst().continuation
                callers[caller] = state
                return next
            }
            state.running -= 1
            callers[caller] = state.running == 0 ? nil : state
            return nil
        }
        next?.resume()
    }
}
