import Foundation
import StrataClient

/// Records a connection's observer callbacks as short strings (`willSend 3`, `didFinish 3 200`).
///
/// `@unchecked Sendable`: `entries` is only read and written while holding `lock`.
final class EventRecorder: ConnectionObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String] = []

    var log: [String] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }

    private func add(_ entry: String) {
        lock.lock()
        entries.append(entry)
        lock.unlock()
    }

    func connection(_ connection: Connection, willSend request: SentRequest) {
        add("willSend \(request.id)")
    }

    func connection(_ connection: Connection, didReceive head: ResponseHead, for request: SentRequest) {
        add("didReceive \(request.id) \(head.status)")
    }

    func connection(_ connection: Connection, didProgress progress: TransferProgress, for request: SentRequest) {
        add("progress \(request.id) \(progress.direction)")
    }

    func connection(_ connection: Connection, didFinish response: StrataResponse, for request: SentRequest) {
        add("didFinish \(request.id) \(response.status)")
    }

    func connection(_ connection: Connection, didFail error: StrataError, for request: SentRequest) {
        add("didFail \(request.id) \(error.kind)")
    }
}

extension ConnectionEvent {
    /// The same short form as ``EventRecorder``.
    var summary: String {
        switch self {
        case .willSend(let request): return "willSend \(request.id)"
        case .didReceiveResponse(let request, let head): return "didReceive \(request.id) \(head.status)"
        case .progress(let request, let progress): return "progress \(request.id) \(progress.direction)"
        case .didFinish(let request, let response): return "didFinish \(request.id) \(response.status)"
        case .didFail(let request, let error): return "didFail \(request.id) \(error.kind)"
        }
    }
}

/// Collapses runs of identical progress entries, so logs compare independently of chunk sizes.
func collapsingProgress(_ log: [String]) -> [String] {
    var result: [String] = []
    for entry in log where !(entry.hasPrefix("progress") && result.last == entry) {
        result.append(entry)
    }
    return result
}
