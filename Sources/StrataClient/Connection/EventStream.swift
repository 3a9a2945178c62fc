import Foundation
import StrataCore

/// How an ``EventStream`` reconnects and when it gives up.
public struct EventStreamConfiguration: Sendable {
    /// The ID to resume after, sent as `Last-Event-ID` on the first connection; nil or empty sends none.
    public var lastEventID: String?
    /// The wait before reconnecting until the server sets one with `retry:`.
    public var initialRetry: Duration
    /// The longest wait between attempts, whatever `retry:` and the backoff say.
    public var maximumRetry: Duration
    /// The share of each wait taken off at random (0 to 1), so that many clients dropped at once
    /// do not all come back at the same instant.
    public var jitter: Double
    /// The longest silence before the stream counts as dead and reconnects: longer than the
    /// server's heartbeat interval (Strata sends one every 15 seconds).
    public var idleTimeout: TimeInterval
    /// Event types that end the stream for good, surfaced as a ``StrataError`` of kind
    /// ``StrataError/Kind/deltaTokenGone`` carrying the event's OData error (Strata's `gone`).
    public var terminalEventTypes: Set<String>
    /// Told of each connection state change, on the stream's task; for a status display.
    public var onStateChange: (@Sendable (EventStreamState) -> Void)?

    /// The defaults: reconnect after 2 s until the server says otherwise, at most 60 s apart, 20 %
    /// jitter, dead after 45 s of silence, `gone` is final.
    public init(lastEventID: String? = nil, initialRetry: Duration = .seconds(2), maximumRetry: Duration = .seconds(60),
                jitter: Double = 0.2, idleTimeout: TimeInterval = 45, terminalEventTypes: Set<String> = ["gone"],
                onStateChange: (@Sendable (EventStreamState) -> Void)? = nil) {
        self.lastEventID = lastEventID
        self.initialRetry = initialRetry
        self.maximumRetry = maximumRetry
        self.jitter = jitter
        self.idleTimeout = idleTimeout
        self.terminalEventTypes = terminalEventTypes
        self.onStateChange = onStateChange
    }
}

extension EventStreamConfiguration {
    /// The wait before reconnecting after `failures` failed attempts in a row (1 after a stream
    /// that was open): the server's `retry` time doubled per further failure, capped at
    /// ``maximumRetry``, then shortened by up to ``jitter`` of it at random.
    public func reconnectDelay(retry: Duration, failures: Int) -> Duration {
        let doubled = retry * (1 << min(max(failures - 1, 0), 16))
        let capped = min(doubled, maximumRetry)
        let share = min(max(jitter, 0), 1)
        guard share > 0 else { return capped }
        return capped * (1 - share * Double.random(in: 0..<1))
    }
}

/// Where an ``EventStream`` is between connections.
public enum EventStreamState: Sendable {
    /// Sending the request (attempt 1, 2, … since the stream was last open).
    case connecting(attempt: Int)
    /// The server answered 200 with an event stream; events flow.
    case open
    /// The connection ended or failed (`error` nil when the server simply closed it); the next
    /// attempt starts after `delay`.
    case waiting(delay: Duration, error: StrataError?)
}

/// A Server-Sent Events subscription (`text/event-stream`) that reconnects by itself: the events of
/// one logical stream across as many HTTP connections as it takes.
///
/// ```swift
/// let stream = EventStream(connection: connection, request: StrataRequest(.get, "cardealer/$feed?sets=Car"))
/// for try await event in stream {
///     print(event.type, event.id, event.data)
/// }
/// ```
///
/// - Bytes are parsed by ``ServerSentEventParser`` (the WHATWG rules), so an event arrives whole
///   however the network splits it.
/// - When a connection ends or fails (network error, server closed it, 5xx, 408, 429, silence
///   longer than ``EventStreamConfiguration/idleTimeout``) it reconnects after the server's `retry:`
///   time (or ``EventStreamConfiguration/initialRetry``), doubled for each further failure in a row,
///   capped at ``EventStreamConfiguration/maximumRetry`` and jittered, sending the last event ID as
///   `Last-Event-ID` so the server resumes strictly after the last event received.
/// - It stops, throwing, on any other 4xx answer (the server's error; a 410 is
///   ``StrataError/Kind/deltaTokenGone``), on a 200 that is not `text/event-stream`, and on a
///   terminal event (`gone`). A 401 refreshes the credentials once through the connection's
///   ``RequestAuthenticator`` and retries at once; every connection asks the authenticator anew,
///   so an ``AuthSession`` refreshes an expired token on reconnect.
/// - Ending the iteration (or cancelling its task) closes the connection.
///
/// Requests go through the ``Connection``'s URLSession, default headers and observers like any other.
public struct EventStream: AsyncSequence, Sendable {
    /// Each event dispatched by the server, in order.
    public typealias Element = ServerSentEvent

    /// The connection the stream's requests go through.
    public let connection: Connection
    /// The request sent on every connection (`Accept: text/event-stream` and `Last-Event-ID` are added).
    public let request: StrataRequest
    /// Reconnection and stopping rules.
    public let configuration: EventStreamConfiguration

    /// A stream of `request`'s events; nothing is sent until iteration starts. Each iteration is a
    /// subscription of its own.
    public init(connection: Connection, request: StrataRequest, configuration: EventStreamConfiguration = EventStreamConfiguration()) {
        self.connection = connection
        self.request = request
        self.configuration = configuration
    }

    /// Starts the subscription.
    public func makeAsyncIterator() -> AsyncThrowingStream<ServerSentEvent, any Error>.Iterator {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: ServerSentEvent.self)
        let runner = EventStreamRunner(connection: connection, request: request, configuration: configuration)
        let task = Task {
            do {
                try await runner.run { continuation.yield($0) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream.makeAsyncIterator()
    }
}

/// The reconnect loop behind ``EventStream``, one per subscription.
struct EventStreamRunner: Sendable {
    let connection: Connection
    let request: StrataRequest
    let configuration: EventStreamConfiguration

    /// What one connection ended with.
    private enum Ending {
        /// Reconnect after a wait (`error` nil: the server closed the stream).
        case retry(StrataError?, after: Duration?)
        /// Reconnect at once with fresh credentials.
        case reauthorize
        /// Stop for good.
        case stop(StrataError)
    }

    /// Runs until cancelled or stopped (then throws), handing each event to `deliver`.
    func run(deliver: (ServerSentEvent) -> Void) async throws(StrataError) {
        var parser = ServerSentEventParser(lastEventID: configuration.lastEventID ?? "")
        var retry = configuration.initialRetry
        var attempt = 0
        var refreshed = false
        let authenticator = request.isAuthenticated ? connection.configuration.authenticator : nil
        while true {
            if Task.isCancelled { return }
            attempt += 1
            configuration.onStateChange?(.connecting(attempt: attempt))
            var sent = request
            sent.headers["Accept"] = "text/event-stream"
            sent.headers["Cache-Control"] = "no-cache"
            sent.headers["Last-Event-ID"] = parser.lastEventID.isEmpty ? nil : parser.lastEventID
            let authorization = try await authenticator?.authorization()
            parser.reset()
            let ending = await connect(sent, authorization: authorization, parser: &parser, retry: &retry, deliver: deliver) {
                attempt = 0
                refreshed = false
                configuration.onStateChange?(.open)
            }
            if Task.isCancelled { return }
            var serverDelay: Duration?
            var failure: StrataError?
            switch ending {
            case .stop(let error):
                throw error
            case .reauthorize:
                guard let authenticator, !refreshed, try await authenticator.refreshAfterRejection(of: authorization) else {
                    throw StrataError(.unauthorized, status: 401, url: try? connection.url(for: request.path),
                                      message: "The server refused the stream's credentials.")
                }
                refreshed = true
                attempt -= 1
                continue
            case .retry(let error, let after):
                failure = error
                serverDelay = after
            }
            let delay = serverDelay ?? configuration.reconnectDelay(retry: retry, failures: max(attempt, 1))
            configuration.onStateChange?(.waiting(delay: delay, error: failure))
            do {
                try await Task.sleep(for: delay)
            } catch {
                return
            }
        }
    }

    /// One connection: reads it to its end, delivering events, and says how it ended.
    private func connect(_ sent: StrataRequest, authorization: String?, parser: inout ServerSentEventParser, retry: inout Duration,
                         deliver: (ServerSentEvent) -> Void, opened: () -> Void) async -> Ending {
        var head: ResponseHead?
        var errorBody = Data()
        var stop: StrataError?
        do {
            try await connection.stream(sent, authorization: authorization, idleTimeout: configuration.idleTimeout) { part in
                switch part {
                case .head(let answer):
                    head = answer
                    guard answer.status == 200 else { return true }
                    let type = answer.headers["Content-Type"]?.lowercased() ?? ""
                    guard type.hasPrefix("text/event-stream") else {
                        stop = StrataError(.invalidResponse, status: answer.status, method: sent.method, url: answer.url,
                                           message: "The server answered \(type.isEmpty ? "without a content type" : type), not text/event-stream.")
                        return false
                    }
                    opened()
                    return true
                case .data(let chunk):
                    guard let answer = head, answer.status == 200 else {
                        // An error answer's body, kept for its OData error (within reason).
                        errorBody.append(chunk)
                        return errorBody.count < 1 << 20
                    }
                    for item in parser.parse(chunk) {
                        switch item {
                        case .retry(let milliseconds):
                            retry = min(.milliseconds(milliseconds), configuration.maximumRetry)
                        case .event(let event):
                            if configuration.terminalEventTypes.contains(event.type) {
                                stop = Self.gone(event, url: answer.url)
                                return false
                            }
                            deliver(event)
                        }
                    }
                    return true
                }
            }
        } catch {
            if let stop { return .stop(stop) }
            return .retry(error, after: nil)
        }
        if let stop { return .stop(stop) }
        guard let head, head.status != 200 else { return .retry(nil, after: nil) }
        let response = StrataResponse(status: head.status, headers: head.headers, body: errorBody, url: head.url)
        let error = StrataError(response: response)
        switch head.status {
        case 401:
            return .reauthorize
        case 408, 429, 500...599:
            return .retry(error, after: Self.retryAfter(head.headers).map { min($0, configuration.maximumRetry) })
        default:
            return .stop(error)
        }
    }

    /// `Retry-After` in seconds, as 429 and 503 answers give it.
    static func retryAfter(_ headers: StrataHeaders) -> Duration? {
        guard let text = headers["Retry-After"]?.trimmingCharacters(in: .whitespaces), let seconds = Int(text), seconds >= 0 else { return nil }
        return .seconds(seconds)
    }

    /// The error a `gone` event stands for: its data is the OData error of the 410 answer.
    static func gone(_ event: ServerSentEvent, url: URL) -> StrataError {
        let odata = ODataError.decode(status: 410, body: Array(event.data.utf8))
        return StrataError(.deltaTokenGone, status: 410, code: odata?.code ?? ODataDelta.tokenGoneCode, url: url,
                           message: odata?.message ?? "The change stream can no longer continue; read the data again.")
    }
}
