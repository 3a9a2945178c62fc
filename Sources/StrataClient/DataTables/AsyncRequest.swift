import Foundation
import StrataCore
import Synchronization

/// A request in the Data Abstract sample's style: created unstarted, configured, started, cancelled, watched.
///
/// ```swift
/// let request = adapter.tableRequest("Customers")
/// request.context = "Retrieving Customers"
/// request.onProgress { progress in bar.doubleValue = Double(progress.completedBytes) }
/// request.onCompletion { customers in self.customers = customers }
/// request.onFailure { error in self.show(error) }
/// request.start()
/// ```
///
/// ## Where handlers run
/// Handlers run on the main actor, as Data Abstract's callbacks ran on the main thread: UI code
/// (a view model, a SwiftUI view) touches its state in them directly, and a handler written
/// anywhere else is still main-actor code, so it may update the UI too. Code on another actor, or
/// in no actor, awaits ``value`` instead and stays where it is.
///
/// The main actor must be free to run them: an app's is, and so is that of a command-line tool or
/// test with an `async` entry point (on Linux too, where the main actor drains the main dispatch
/// queue). A program that blocks its main thread waiting for the request gets no handler calls.
///
/// Handlers of one request run one at a time, in order: every progress report before the
/// completion or failure. Handlers added after the request finished are not called; add them
/// before ``start()``.
public final class AsyncRequest<Value: Sendable>: Sendable {
    // Everything that changes lives in one `Mutex`, the client's one lock style and the server's:
    // it comes with the toolchain, so apps pull in no dependency for it (NIO's locks would bring
    // NIO), and it keeps the value inside the lock, so the compiler rather than a comment proves
    // that nothing is touched without it. A critical section is a few assignments, never an
    // `await`, and handlers are copied out and called after the lock is released.

    /// Where a request is in its life.
    public enum State: Sendable, Hashable {
        /// Created and configurable; nothing sent yet.
        case ready
        /// Started and not finished.
        case running
        /// Completed with a value.
        case finished
        /// Failed with an error.
        case failed
        /// Cancelled before it finished.
        case cancelled
    }

    /// A handler: a closure that runs on the main actor (see the type's discussion).
    public typealias Handler<Argument> = @MainActor @Sendable (Argument) -> Void

    private enum Event: Sendable {
        case progress(TransferProgress)
        case finished(Result<Value, StrataError>)
    }

    // Not named `State`: that is the request's public life cycle, one of the fields.
    private struct Shared {
        var state = State.ready
        var context: (any Sendable)?
        var progress: TransferProgress?
        var completionHandlers: [Handler<Value>] = []
        var failureHandlers: [Handler<StrataError>] = []
        var progressHandlers: [Handler<TransferProgress>] = []
        var task: Task<Void, Never>?
        var waiters: [CheckedContinuation<Result<Value, StrataError>, Never>] = []
        var outcome: Result<Value, StrataError>?
    }

    private let shared = Mutex(Shared())
    private let operation: @Sendable (@escaping @Sendable (TransferProgress) -> Void) async throws(StrataError) -> Value
    private let events: AsyncStream<Event>
    private let eventSink: AsyncStream<Event>.Continuation

    init(_ operation: @escaping @Sendable (@escaping @Sendable (TransferProgress) -> Void) async throws(StrataError) -> Value) {
        self.operation = operation
        (events, eventSink) = AsyncStream.makeStream(of: Event.self)
    }

    /// Anything that identifies the request to your handlers, as the Data Abstract sample's `context`.
    public var context: (any Sendable)? {
        get { shared.withLock { $0.context } }
        set { shared.withLock { $0.context = newValue } }
    }

    /// Where the request is in its life.
    public var state: State { shared.withLock { $0.state } }

    /// The latest progress reported; nil before any bytes moved.
    public var progress: TransferProgress? { shared.withLock { $0.progress } }

    /// Calls `handler` on the main actor with the result when the request succeeds.
    @discardableResult
    public func onCompletion(_ handler: @escaping Handler<Value>) -> Self {
        shared.withLock { $0.completionHandlers.append(handler) }
        return self
    }

    /// Calls `handler` on the main actor with the error when the request fails or is cancelled.
    @discardableResult
    public func onFailure(_ handler: @escaping Handler<StrataError>) -> Self {
        shared.withLock { $0.failureHandlers.append(handler) }
        return self
    }

    /// Calls `handler` on the main actor as the request body is sent and the answer arrives.
    @discardableResult
    public func onProgress(_ handler: @escaping Handler<TransferProgress>) -> Self {
        shared.withLock { $0.progressHandlers.append(handler) }
        return self
    }

    /// Starts the request. Starting a request that is not ``State/ready`` does nothing.
    public func start() {
        let shouldStart = shared.withLock { shared -> Bool in
            guard shared.state == .ready else { return false }
            shared.state = .running
            return true
        }
        guard shouldStart else { return }
        let operation = self.operation
        let sink = eventSink
        let task = Task {
            let result: Result<Value, StrataError>
            do throws(StrataError) {
                result = .success(try await operation { progress in sink.yield(.progress(progress)) })
            } catch {
                result = .failure(Task.isCancelled && error.kind != .cancelled
                    ? StrataError(.cancelled, message: "The request was cancelled.", underlying: error) : error)
            }
            sink.yield(.finished(result))
        }
        shared.withLock { $0.task = task }
        Task { await self.deliverEvents() }
    }

    /// Cancels the request: the transfer stops and the failure handlers get a
    /// ``StrataError/Kind/cancelled`` error. A request cancelled before it starts never runs.
    public func cancel() {
        let (task, neverStarted) = shared.withLock { shared -> (Task<Void, Never>?, Bool) in
            if shared.state == .ready {
                shared.state = .cancelled
                return (nil, true)
            }
            return (shared.task, false)
        }
        task?.cancel()
        if neverStarted {
            eventSink.yield(.finished(.failure(StrataError(.cancelled, message: "The request was cancelled before it started."))))
            Task { await self.deliverEvents() }
        }
    }

    /// The request's result for `async` code; starts the request if nobody has.
    public var value: Value {
        get async throws(StrataError) {
            start()
            let result = await withCheckedContinuation { continuation in
                let ready = shared.withLock { shared -> Result<Value, StrataError>? in
                    if let outcome = shared.outcome { return outcome }
                    shared.waiters.append(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
            return try result.get()
        }
    }

    /// Hands the events to the handlers one at a time, in the order they happened.
    private func deliverEvents() async {
        for await event in events {
            switch event {
            case .progress(let progress):
                let handlers = shared.withLock { shared -> [Handler<TransferProgress>] in
                    shared.progress = progress
                    return shared.progressHandlers
                }
                for handler in handlers { await handler(progress) }
            case .finished(let result):
                let (waiting, completions, failures) = shared.withLock {
                    shared -> ([CheckedContinuation<Result<Value, StrataError>, Never>], [Handler<Value>], [Handler<StrataError>]) in
                    shared.outcome = result
                    switch result {
                    case .success: shared.state = .finished
                    case .failure(let error): shared.state = error.kind == .cancelled ? .cancelled : .failed
                    }
                    defer { shared.waiters = [] }
                    return (shared.waiters, shared.completionHandlers, shared.failureHandlers)
                }
                for waiter in waiting { waiter.resume(returning: result) }
                switch result {
                case .success(let value): for handler in completions { await handler(value) }
                case .failure(let error): for handler in failures { await handler(error) }
                }
                eventSink.finish()
                return
            }
        }
    }
}
