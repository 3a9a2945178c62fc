import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP connection to one server: a base URL that relative requests resolve against, default
/// headers and a timeout, observers and an event stream, and the last exchange kept for debugging.
///
/// This is the CarDealer sample's `RestConnection` grown up: `send(_:)` is `async`, any number of requests may
/// run at once, and cancelling the calling task cancels the request.
///
/// ```swift
/// let connection = Connection(baseURL: URL(string: "http://127.0.0.1:8080/cardealer/")!)
/// let response = try await connection.send(StrataRequest(.get, "Person(1)"))
/// print(response.status, response.text)
/// ```
///
/// The connection is an actor: its state (observers, subscribers, ``lastExchange``) changes only on
/// its executor, and observers are called there in event order. Transfers run in URLSession; the
/// actor only waits for them, so concurrent requests do not queue behind each other.
public actor Connection {
    /// Where relative request paths start; always ends with `/`.
    public nonisolated let baseURL: URL
    /// The default headers, timeout and authenticator applied to every request.
    public nonisolated let configuration: ConnectionConfiguration

    private nonisolated let session: URLSession
    private nonisolated let delegate: SessionDelegate

    /// The most recent finished request with its response or error.
    public private(set) var lastExchange: Exchange?

    private var observers: [UInt64: any ConnectionObserver] = [:]
    private var subscribers: [UInt64: AsyncStream<ConnectionEvent>.Continuation] = [:]
    private var lastIdentifier: UInt64 = 0
    private var lastRequestIdentifier: UInt64 = 0

    /// The highest log position the servers have answered (`Strata-Position`), sent with every
    /// request from now on so that no server answers from data older than what this connection has
    /// written or read (``ReadPosition``). Nil until a server that reads from standbys answers one.
    public private(set) var readPosition: ReadPosition?

    /// Creates a connection; requests with relative paths resolve against `baseURL`, which is
    /// treated as a directory (`…/cardealer` and `…/cardealer/` are the same).
    public init(baseURL: URL, configuration: ConnectionConfiguration = ConnectionConfiguration()) {
        let text = baseURL.absoluteString
        self.baseURL = text.hasSuffix("/") ? baseURL : URL(string: text + "/") ?? baseURL
        self.configuration = configuration
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        // OData answers depend on headers (versions, credentials); a shared cache or cookies would
        // blur one request's answer into another's.
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.urlCache = nil
        sessionConfiguration.httpShouldSetCookies = false
        // Timeouts are enforced per request by IdleTimer; the session's must not cut them shorter.
        sessionConfiguration.timeoutIntervalForRequest = 7 * 24 * 3600
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "StrataClient.Connection"
        let delegate = SessionDelegate()
        self.delegate = delegate
        self.session = URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: queue)
    }

    deinit {
        session.finishTasksAndInvalidate()
        for continuation in subscribers.values { continuation.finish() }
    }

    /// The absolute URL a request path resolves to.
    public nonisolated func url(for path: String) throws(StrataError) -> URL {
        let lowered = path.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            guard let url = URL(string: path) else {
                throw StrataError(.invalidRequest, message: "\(path) is not a valid URL.")
            }
            return url
        }
        if path.isEmpty { return baseURL }
        // A first segment with a colon (a key such as RowKey='a:b') would read as a URL scheme.
        let firstSegment = path.prefix { $0 != "/" && $0 != "?" }
        let relative = firstSegment.contains(":") ? "./" + path : path
        guard let url = URL(string: relative, relativeTo: baseURL)?.absoluteURL else {
            throw StrataError(.invalidRequest, message: "\(path) is not a valid path relative to \(baseURL.absoluteString).")
        }
        return url
    }

    /// Sends a request and returns the complete response, whatever its status.
    ///
    /// Error statuses are responses, not errors: call ``StrataResponse/requireSuccess()`` (the data service
    /// does) to turn them into a ``StrataError``. With an authenticator, a 401 triggers one refresh
    /// and one retry.
    ///
    /// - Parameter progress: called for every chunk of the request body sent and of the response body
    ///   received, in order, on the connection's executor.
    /// - Throws: ``StrataError`` of kind ``StrataError/Kind/transport``, ``StrataError/Kind/timedOut``,
    ///   ``StrataError/Kind/cancelled`` or ``StrataError/Kind/invalidRequest``, or whatever the
    ///   authenticator throws.
    public func send(_ request: StrataRequest, progress: (@Sendable (TransferProgress) -> Void)? = nil) async throws(StrataError) -> StrataResponse {
        try await send(request, destination: nil, progress: progress)
    }

    /// Sends a request and writes a successful response's body to a file as it arrives, so that a
    /// large download never sits in memory.
    ///
    /// The body goes to a temporary file beside `destination`, which replaces `destination` only
    /// once the whole body has arrived: a failed or cancelled transfer leaves an existing file as
    /// it was. For a 2xx answer the returned response's ``StrataResponse/body`` is empty; any other
    /// answer is returned whole, in memory, and no file is written.
    ///
    /// - Throws: what ``send(_:progress:)`` throws, and ``StrataError/Kind/invalidRequest`` when
    ///   the file cannot be written.
    public func download(_ request: StrataRequest, to destination: URL,
                         progress: (@Sendable (TransferProgress) -> Void)? = nil) async throws(StrataError) -> StrataResponse {
        try await send(request, destination: destination, inPlace: false, progress: progress)
    }

    /// Like ``download(_:to:progress:)``, but the body is written to `destination` itself as it
    /// arrives, so that a reader can follow the file while it grows (each progress report comes
    /// after its bytes are written); a failed transfer removes the file.
    func download(_ request: StrataRequest, inPlace destination: URL,
                  progress: (@Sendable (TransferProgress) -> Void)?) async throws(StrataError) -> StrataResponse {
        try await send(request, destination: destination, inPlace: true, progress: progress)
    }

    private func send(_ request: StrataRequest, destination: URL?, inPlace: Bool = false, progress: (@Sendable (TransferProgress) -> Void)?) async throws(StrataError) -> StrataResponse {
        let authenticator = request.isAuthenticated ? configuration.authenticator : nil
        let authorization = try await authenticator?.authorization()
        let response = try await perform(request, authorization: authorization, destination: destination, inPlace: inPlace, progress: progress)
        if response.status == 401, let authenticator, try await authenticator.refreshAfterRejection(of: authorization) {
            let fresh = try await authenticator.authorization()
            return try await perform(request, authorization: fresh, destination: destination, inPlace: inPlace, progress: progress)
        }
        return response
    }

    // MARK: Observing

    /// Adds an observer that is told about every request from now on.
    @discardableResult
    public func addObserver(_ observer: any ConnectionObserver) -> ObserverToken {
        lastIdentifier += 1
        observers[lastIdentifier] = observer
        return ObserverToken(id: lastIdentifier)
    }

    /// Stops telling the observer added with `token` about requests.
    public func removeObserver(_ token: ObserverToken) {
        observers[token.id] = nil
    }

    /// A stream of every event from now on, until the stream is dropped or the connection goes away.
    ///
    /// Each call returns a new, independent stream. Events are buffered, so a slow reader misses none.
    public func events() -> AsyncStream<ConnectionEvent> {
        lastIdentifier += 1
        let id = lastIdentifier
        let (stream, continuation) = AsyncStream.makeStream(of: ConnectionEvent.self)
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeSubscriber(id) }
        }
        return stream
    }

    private func removeSubscriber(_ id: UInt64) {
        subscribers[id] = nil
    }

    func emit(_ event: ConnectionEvent) {
        for continuation in subscribers.values { continuation.yield(event) }
        for observer in observers.values {
            switch event {
            case .willSend(let request): observer.connection(self, willSend: request)
            case .didReceiveResponse(let request, let head): observer.connection(self, didReceive: head, for: request)
            case .progress(let request, let progress): observer.connection(self, didProgress: progress, for: request)
            case .didFinish(let request, let response): observer.connection(self, didFinish: response, for: request)
            case .didFail(let request, let error): observer.connection(self, didFail: error, for: request)
            }
        }
    }

    // MARK: Transfer

    func nextRequestIdentifier() -> UInt64 {
        lastRequestIdentifier += 1
        return lastRequestIdentifier
    }

    func record(_ exchange: Exchange) {
        lastExchange = exchange
    }

    /// Remembers a response's position when it is past the highest seen.
    func remember(positionFrom headers: StrataHeaders) {
        guard let text = headers[ReadPosition.headerName], let position = ReadPosition(text) else { return }
        if readPosition.map({ $0 < position }) ?? true { readPosition = position }
    }

    /// `headers` with the highest position seen, unless the request names one itself.
    func positioned(_ headers: StrataHeaders) -> StrataHeaders {
        guard let readPosition, headers[ReadPosition.headerName] == nil else { return headers }
        var headers = headers
        headers[ReadPosition.headerName] = readPosition.description
        return headers
    }

    nonisolated var urlSession: URLSession { session }
    nonisolated var sessionDelegate: SessionDelegate { delegate }
}
