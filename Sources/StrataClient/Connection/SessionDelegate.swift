import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// What URLSession reports about one task, in the order it reports it.
enum TaskUpdate: Sendable {
    case sent(bytes: Int64, expected: Int64)
    case response(ResponseHead)
    case data(Data)
    case completed((any Error)?)
}

/// Receives a session's delegate callbacks and hands each task's updates to the stream that
/// ``Connection`` reads for that task.
///
/// The response head is reported with the first body bytes, or at completion when the body is empty,
/// rather than from `didReceive response:completionHandler:`: that method's completion handler is
/// `@Sendable` in Apple's SDKs and not in swift-corelibs-foundation, and one signature cannot satisfy both.
///
/// URLSession calls the delegate on its serial delegate queue while ``Connection`` registers tasks
/// from its own executor; what both touch is in `state`.
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    // The client's one lock style (see AsyncRequest for why `Mutex`).
    private struct State {
        var streams: [Int: AsyncStream<TaskUpdate>.Continuation] = [:]
        var headSent: Set<Int> = []
        var activity: [Int: @Sendable () -> Void] = [:]
    }

    private let state = Mutex(State())

    /// The updates of `task`, registered before the task is resumed so that none are missed.
    ///
    /// `onActivity` runs on the delegate queue as each callback arrives, before the update is read:
    /// an idle timeout measured there counts silence on the network, not delays in a busy reader.
    func updates(for task: URLSessionTask, onActivity: @escaping @Sendable () -> Void = {}) -> AsyncStream<TaskUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(of: TaskUpdate.self)
        let id = task.taskIdentifier
        state.withLock { state in
            state.streams[id] = continuation
            state.activity[id] = onActivity
        }
        return stream
    }

    private func continuation(for task: URLSessionTask, markingHead: Bool = false) -> (AsyncStream<TaskUpdate>.Continuation?, Bool) {
        let id = task.taskIdentifier
        let (continuation, onActivity, needsHead) = state.withLock { state in
            (state.streams[id], state.activity[id], markingHead && state.headSent.insert(id).inserted)
        }
        onActivity?()
        return (continuation, needsHead)
    }

    private func yieldHead(of task: URLSessionTask, to continuation: AsyncStream<TaskUpdate>.Continuation) {
        guard let http = task.response as? HTTPURLResponse, let url = http.url ?? task.originalRequest?.url else { return }
        var headers = StrataHeaders()
        for (name, value) in http.allHeaderFields {
            headers.add(name: "\(name)", value: "\(value)")
        }
        let expected = http.expectedContentLength
        continuation.yield(.response(ResponseHead(status: http.statusCode, headers: headers,
                                                  expectedLength: expected >= 0 ? expected : nil, url: url)))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
                    totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        // Only bytesSent is trusted: swift-corelibs-foundation reports inconsistent running totals.
        continuation(for: task).0?.yield(.sent(bytes: bytesSent, expected: totalBytesExpectedToSend))
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let (continuation, needsHead) = continuation(for: dataTask, markingHead: true)
        guard let continuation else { return }
        if needsHead { yieldHead(of: dataTask, to: continuation) }
        continuation.yield(.data(data))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, needsHead) = continuation(for: task, markingHead: true)
        let id = task.taskIdentifier
        state.withLock { state in
            state.streams[id] = nil
            state.activity[id] = nil
            state.headSent.remove(id)
        }
        guard let continuation else { return }
        if needsHead, error == nil { yieldHead(of: task, to: continuation) }
        continuation.yield(.completed(error))
        continuation.finish()
    }
}
