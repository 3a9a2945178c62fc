import Foundation
import StrataClient

/// Keeps every request a connection sends, in order: V4 reads may send a `$metadata` request of
/// their own after the one under test, so `lastExchange` is not always the request a test made.
///
/// `@unchecked Sendable`: `requests` is only read and written while holding `lock`.
final class RequestRecorder: ConnectionObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var requests: [SentRequest] = []

    /// Starts recording `service`'s requests.
    static func on(_ service: DataService) async -> RequestRecorder {
        let recorder = RequestRecorder()
        _ = await service.connection.addObserver(recorder)
        return recorder
    }

    /// The last request sent that is not for `$metadata`.
    var last: SentRequest? {
        lock.lock()
        defer { lock.unlock() }
        return requests.last { !$0.url.path.hasSuffix("/$metadata") }
    }

    func connection(_ connection: Connection, willSend request: SentRequest) {
        lock.lock()
        requests.append(request)
        lock.unlock()
    }
}
