import Foundation
import StrataCore

/// A request in the seed's style: created unstarted, configured, started, cancelled, watched.
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
/// The seed's callbacks ran on the thread that started the request, so UI code could touch its
/// views without locks. Here a handler runs on the actor it was written on: one written in
/// `@MainActor` code (a view model, a SwiftUI view) runs on the main actor, one written in an
/// actor's method that uses `self` runs on that actor, and one marked `{ @MainActor in … }` runs
/// on the main actor wherever it was written. A handler written outside any actor runs on no
/// particular actor, as the seed's `startInBackground` callbacks did.
///
/// Handlers of one request run one at a time, in order: every progress report before the
/// completion or failure. The result is also available to `async` code through ``value``.
/// Handlers added after the request finished are not called; add them before ``start()``.
public final class AsyncRequest<Value: Sendable>: @unchecked Sendable {
    // `@unchecked Sendable`: every mutable property below is read and written only while holding
    // `lock` (see `locked`), and handlers are copied out before they are called.

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

    /// A handler: a closure that runs on the actor it was written on (see the type's discussion).
    public typealias Handler<Argument> = @Sendable @isolated(any) (Argument) -> Void

    private enum Event: Sendable {
        case progress(TransferProgress)
        case finished(Result<Value, StrataError>)
    }

    private let lock = NSLock()
    private let operation: @Sendable (@escaping @Sendable (TransferProgress) -> Void) async throws(StrataError) -> Value
    private let events: AsyncStream<Event>
    private let eventSink: AsyncStream<Event>.Continuation
    private var stateValue = State.ready
    private var contextValue: (any Sendable)?
    private var progressValue: TransferProgress?
    private var completionHandlers: [Handler<Value>] = []
    private var failureHandlers: [Handler<StrataError>] = []
    private var progressHandlers: [Handler<TransferProgress>] = []
    private var task: Task<Void, Never>?
    private var waiters: [CheckedContinuation<Result<Value, StrataError>, Never>] = []
    private var outcome: Result<Value, StrataError>?

    init(_ operation: @escaping @Sendable (@escaping @Sendable (TransferProgress) -> Void) async throws(StrataError) -> Value) {
        self.operation = operation
        (events, eventSink) = AsyncStream.makeStream(of: Event.self)
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Anything that identifies the request to your handlers, as the seed's `context`.
    public var context: (any Sendable)? {
        get { locked { contextValue } }
        set { locked { contextValue = newValue } }
    }

    /// Where the request is in its life.
    public var state: State { locked { stateValue } }

    /// The latest progress reported; nil before any bytes moved.
    public var progress: TransferProgress? { locked { progressValue } }

    /// Calls `handler` with the result when the request succeeds.
    @discardableResult
    public func onCompletion(@_inheritActorContext _ handler: @escaping Handler<Value>) -> Self {
        locked { completionHandlers.append(handler) }
        return self
    }

    /// Calls `handler` with the error when the request fails or is cancelled.
    @discardableResult
    public func onFailure(@_inheritActorContext _ handler: @escaping Handler<StrataError>) -> Self {
        locked { failureHandlers.append(handler) }
        return self
    }

    /// Calls `handler` as the request body is sent and the answer arrives.
    @discardableResult
    public func onProgress(@_inheritActorContext _ handler: @escaping Handler<TransferProgress>) -> Self {
        locked { progressHandlers.append(handler) }
        return self
    }

    /// Starts the request. Starting a request that is not ``State/ready`` does nothing.
    public func start() {
        let shouldStart = locked { () -> Bool in
            guard stateValue == .ready else { return false }
            stateValue = .running
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
        locked { self.task = task }
        Task { await self.deliverEvents() }
    }

    /// Cancels the request: the transfer stops and the failure handlers get a
    /// ``StrataError/Kind/cancelled`` error. A request cancelled before it starts never runs.
    public func cancel() {
        let (task, neverStarted) = locked { () -> (Task<Void, Never>?, Bool) in
            if stateValue == .ready {
                stateValue = .cancelled
                return (nil, true)
            }
            return (self.task, false)
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
                let ready = locked { () -> Result<Value, StrataError>? in
                    if let outcome { return outcome }
                    waiters.append(continuation)
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
                let handlers = locked { () -> [Handler<TransferProgress>] in
                    progressValue = progress
                    return progressHandlers
                }
                for handler in handlers { await handler(progress) }
            case .finished(let result):
                let (waiting, completions, failures) = locked {
                    () -> ([CheckedContinuation<Result<Value, StrataError>, Never>], [Handler<Value>], [Handler<StrataError>]) in
                    outcome = result
                    switch result {
                    case .success: stateValue = .finished
                    case .failure(let error): stateValue = error.kind == .cancelled ? .cancelled : .failed
                    }
                    defer { waiters = [] }
                    return (waiters, completionHandlers, failureHandlers)
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
