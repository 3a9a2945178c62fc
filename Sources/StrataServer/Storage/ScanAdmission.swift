import Synchronization

/// How many scans each caller may run at once, so that no caller can hold every connection or
/// thread kept for scans, however many requests it sends.
///
/// A caller (an account, or for anonymous requests a client address) runs at most `perCaller`
/// scan statements at a time; further ones wait in line behind that caller's own, and once
/// `queuePerCaller` of them wait, more are refused (`StorageError.overloaded`, a 429). One caller's
/// flood therefore delays only that caller.
final class ScanAdmission: Sendable {
    let perCaller: Int
    let queuePerCaller: Int
    private let callers = Mutex<[String: Caller]>([:])

    private struct Caller {
        var running = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    init(perCaller: Int, queuePerCaller: Int) {
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
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = callers.withLock { callers in
                var state = callers[caller, default: Caller()]
                defer { callers[caller] = state }
                if state.running < perCaller {
                    state.running += 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if admitted { continuation.resume() }
        }
    }

    private func leave(_ caller: String) {
        let next: CheckedContinuation<Void, Never>? = callers.withLock { callers in
            guard var state = callers[caller] else { return nil }
            if !state.waiting.isEmpty {
                // The place passes straight to the caller's next scan.
                let next = state.waiting.removeFirst()
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
