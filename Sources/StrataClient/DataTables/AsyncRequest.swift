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
    private let operation: @Sendable (@escaping @Sendable (DataTableProgress) -> Void) async throws(DataTableError) -> Value
    private var stateValue = State.ready
    private var contextValue: (any Sendable)?
    private var progressValue: DataTableProgress?
    private var completionHandlers: [Handler<Value>] = []
    private var failureHandlers: [Handler<DataTableError>] = []
    private var progressHandlers: [Handler<DataTableProgress>] = []
    private var task: Task<Value, any Error>?
    private var waiters: [CheckedContinuation<Result<Value, DataTableError>, Never>] = []
    private var outcome: Result<Value, DataTableError>?

    init(_ operation: @escaping @Sendable (@escaping @Sendable (DataTableProgress) -> Void) async throws(DataTableError) -> Value) {
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
    public var progress: DataTableProgress? { locked { progressValue } }

    /// Calls `handler` with the result when the request succeeds.
    @discardableResult
    public func onCompletion(_ handler: @escaping Handler<Value>) -> Self {
        locked { completionHandlers.append(handler) }
        return self
    }

    /// Calls `handler` with the error when the request fails or is cancelled.
    @discardableResult
    public func onFailure(_ handler: @escaping Handler<DataTableError>) -> Self {
        locked { failureHandlers.append(handler) }
        return self
    }

    /// Calls `handler` as the answer arrives.
    @discardableResult
    public func onProgress(_ handler: @escaping Handler<DataTableProgress>) -> Self {
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
    /// ``DataTableError/Kind/cancelled`` error. A request cancelled before it starts never runs.
    public func cancel() {
        let (task, neverStarted) = locked { () -> (Task<Value, any Error>?, Bool) in
            if stateValue == .ready {
                stateValue = .cancelled
                return (nil, true)
            }
            return (self.task, false)
        }
        task?.cancel()
        if neverStarted { finish(.failure(DataTableError(.cancelled, "The request was cancelled before it started.")), on: nil) }
    }

    /// The request's result for `async` code; starts the request in the background if nobody has.
    public var value: Value {
        get async throws(DataTableError) {
            if state == .ready { startInBackground() }
            let result = await withCheckedContinuation { continuation in
                let ready = locked { () -> Result<Value, DataTableError>? in
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
            let result: Result<Value, DataTableError>
            do {
                result = .success(try await task.value)
            } catch let error as DataTableError {
                result = .failure(task.isCancelled ? DataTableError(.cancelled, "The request was cancelled.") : error)
            } catch {
                result = .failure(DataTableError(.cancelled, "The request was cancelled."))
            }
            self.finish(result, on: isolation)
        }
    }

    private func report(_ progress: DataTableProgress, on isolation: (any Actor)?) {
        let handlers = locked { () -> [Handler<DataTableProgress>] in
            progressValue = progress
            return progressHandlers
        }
        guard !handlers.isEmpty else { return }
        Task { await Self.deliver(progress, to: handlers, on: isolation) }
    }

    private func finish(_ result: Result<Value, DataTableError>, on isolation: (any Actor)?) {
        let (waiting, completions, failures) = locked { () -> ([CheckedContinuation<Result<Value, DataTableError>, Never>], [Handler<Value>], [Handler<DataTableError>]) in
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

extension RemoteDataAdapter {
    /// ``table(_:where:orderBy:select:top:skip:)`` as an unstarted ``AsyncRequest``.
    public func tableRequest(_ name: String, where filter: String? = nil, orderBy: String? = nil, select: [String] = [],
                             top: Int? = nil, skip: Int? = nil) -> AsyncRequest<DataTable> {
        AsyncRequest { progress throws(DataTableError) in
            try await fetchTable(name, filter: filter, orderBy: orderBy, select: select, top: top, skip: skip, progress: progress)
        }
    }

    /// ``tables(_:)`` as an unstarted ``AsyncRequest``.
    public func tablesRequest(_ names: [String]) -> AsyncRequest<[DataTable]> {
        AsyncRequest { progress throws(DataTableError) in try await fetchTables(names, progress: progress) }
    }

    /// ``table(sql:parameters:)`` as an unstarted ``AsyncRequest``.
    public func tableRequest(sql: String, parameters: [String: ODataValue] = [:]) -> AsyncRequest<DataTable> {
        AsyncRequest { progress throws(DataTableError) in try await fetchSQL(sql, parameters: parameters, progress: progress) }
    }

    /// ``applyChanges(_:mode:)-([DataTable])`` as an unstarted ``AsyncRequest`` whose value is the
    /// tables with the results merged in (the tables passed here are not changed).
    public func applyChangesRequest(_ tables: [DataTable], mode: DataTableDelta.Mode = .allOrNothing)
        -> AsyncRequest<(tables: [DataTable], summary: ApplySummary)> {
        AsyncRequest { progress throws(DataTableError) in try await sendChanges(tables, mode: mode, progress: progress) }
    }
}
