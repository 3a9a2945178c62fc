import StrataCore
import Foundation

/// A request in the seed's style: created unstarted, configured, started, cancelled, watched.
///
/// ```swift
/// let request = adapter.tableRequest("Customers")
/// request.context = "Retrieving Customers"
/// request.onProgress { @MainActor progress in bar.doubleValue = progress.fractionCompleted ?? 0 }
/// request.onCompletion { @MainActor customers in self.customers = customers }
/// request.onFailure { @MainActor error in self.show(error) }
/// request.start()
/// ```
///
/// Handlers run where they belong: a handler isolated to an actor (`{ @MainActor … }`, or one
/// written inside an actor's method) runs on that actor; a handler without isolation runs on the
/// actor that called ``start(isolation:)``, as the seed's callbacks ran on the starting thread.
/// The same result is also available to `async` code through ``value``.
///
/// Handlers added after the request finished are not called; add them before ``start(isolation:)``.
public final class AsyncRequest<Value: Sendable>: @unchecked Sendable {
    // `@unchecked Sendable`: every mutable property below is read and written only while holding
    // `lock` (see `locked`), and handlers are copied out before they are called.

    /// Where a request is in its life.
    public enum State: Sendable, Hashable {
        case ready, running, finished, failed, cancelled
    }

    public typealias Handler<Argument> = @Sendable @isolated(any) (Argument) -> Void

    private let lock = NSLock()
    private let operation: @Sendable (@escaping @Sendable (TransferProgress) -> Void) async throws(StrataError) -> Value
    private var stateValue = State.ready
    private var contextValue: (any Sendable)?
    private var progressValue: TransferProgress?
    private var completionHandlers: [Handler<Value>] = []
    private var failureHandlers: [Handler<StrataError>] = []
    private var progressHandlers: [Handler<TransferProgress>] = []
    private var task: Task<Value, any Error>?
    private var waiters: [CheckedContinuation<Result<Value, StrataError>, Never>] = []
    private var outcome: Result<Value, StrataError>?

    init(_ operation: @escaping @Sendable (@escaping @Sendable (TransferProgress) -> Void) async throws(StrataError) -> Value) {
        self.operation = operation
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

    public var state: State { locked { stateValue } }

    /// The latest progress reported; nil before any bytes arrived.
    public var progress: TransferProgress? { locked { progressValue } }

    /// Calls `handler` with the result when the request succeeds.
    @discardableResult
    public func onCompletion(_ handler: @escaping Handler<Value>) -> Self {
        locked { completionHandlers.append(handler) }
        return self
    }

    /// Calls `handler` with the error when the request fails or is cancelled.
    @discardableResult
    public func onFailure(_ handler: @escaping Handler<StrataError>) -> Self {
        locked { failureHandlers.append(handler) }
        return self
    }

    /// Calls `handler` as the answer arrives.
    @discardableResult
    public func onProgress(_ handler: @escaping Handler<TransferProgress>) -> Self {
        locked { progressHandlers.append(handler) }
        return self
    }

    /// Starts the request; handlers without isolation of their own run on the caller's actor.
    /// Starting a request that is not ``State/ready`` does nothing.
    public func start(isolation: isolated (any Actor)? = #isolation) {
        launch(on: isolation)
    }

    /// Starts the request; handlers without isolation of their own run on no particular actor,
    /// as the seed's `startInBackground`.
    public func startInBackground() {
        launch(on: nil)
    }

    /// Cancels the request: the transfer stops and the failure handlers get a
    /// ``StrataError/Kind/cancelled`` error. A request cancelled before it starts never runs.
    public func cancel() {
        let (task, neverStarted) = locked { () -> (Task<Value, any Error>?, Bool) in
            if stateValue == .ready {
                stateValue = .cancelled
                return (nil, true)
            }
            return (self.task, false)
        }
        task?.cancel()
        if neverStarted { finish(.failure(StrataError(.cancelled, message: "The request was cancelled before it started.")), on: nil) }
    }

    /// The request's result for `async` code; starts the request in the background if nobody has.
    public var value: Value {
        get async throws(StrataError) {
            if state == .ready { startInBackground() }
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

    private func launch(on isolation: (any Actor)?) {
        let shouldStart = locked { () -> Bool in
            guard stateValue == .ready else { return false }
            stateValue = .running
            return true
        }
        guard shouldStart else { return }
        let operation = self.operation
        let task = Task<Value, any Error> { [weak self] in
            try await operation { [weak self] progress in self?.report(progress, on: isolation) }
        }
        locked { self.task = task }
        Task {
            let result: Result<Value, StrataError>
            do {
                result = .success(try await task.value)
            } catch let error as StrataError {
                result = .failure(task.isCancelled && error.kind != .cancelled
                    ? StrataError(.cancelled, message: "The request was cancelled.", underlying: error) : error)
            } catch {
                // The operation throws only StrataError; anything else can only be the task's cancellation.
                result = .failure(StrataError(.cancelled, message: "The request was cancelled.", underlying: error))
            }
            self.finish(result, on: isolation)
        }
    }

    private func report(_ progress: TransferProgress, on isolation: (any Actor)?) {
        let handlers = locked { () -> [Handler<TransferProgress>] in
            progressValue = progress
            return progressHandlers
        }
        guard !handlers.isEmpty else { return }
        Task { await Self.deliver(progress, to: handlers, on: isolation) }
    }

    private func finish(_ result: Result<Value, StrataError>, on isolation: (any Actor)?) {
        let (waiting, completions, failures) = locked { () -> ([CheckedContinuation<Result<Value, StrataError>, Never>], [Handler<Value>], [Handler<StrataError>]) in
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
        case .success(let value):
            if !completions.isEmpty { Task { await Self.deliver(value, to: completions, on: isolation) } }
        case .failure(let error):
            if !failures.isEmpty { Task { await Self.deliver(error, to: failures, on: isolation) } }
        }
    }

    /// Runs handlers in order: each on its own actor when it has one, else on `isolation`.
    private static func deliver<Argument: Sendable>(_ argument: Argument, to handlers: [Handler<Argument>],
                                                    on isolation: isolated (any Actor)?) async {
        for handler in handlers {
            await handler(argument)
        }
    }
}
