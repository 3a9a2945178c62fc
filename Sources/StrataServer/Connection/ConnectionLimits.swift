/// How long a connection may take over each part of an exchange, and how many may be open.
///
/// A client that stops half-way (a slow or silent attacker, or a phone that lost its network) must
/// not keep a connection, and the memory and file descriptor behind it, for ever. The defaults
/// follow what public-facing servers use (nginx, Kestrel): a client has ``headerTimeout`` from its
/// first byte to send a request's head, sends its body at no less than ``minimumBodyRate`` once ``bodyRateGrace`` has
/// passed, takes a response at no less than a write every ``sendTimeout``, and a keep-alive
/// connection with no request for ``idleTimeout`` is closed.
public struct ConnectionLimits: Sendable, Equatable {
    /// From a request's first byte until its whole head has arrived. Past it: `408` and the
    /// connection closes.
    public var headerTimeout: Duration
    /// How long a connection may stay silent: after it opened, or after its last response.
    public var idleTimeout: Duration
    /// The slowest a request body may arrive, in bytes per second, measured from the end of its head
    /// over the time the server was ready to read. Past it: `408` and the connection closes.
    public var minimumBodyRate: Int
    /// How long a body may arrive slower than ``minimumBodyRate`` before it counts.
    public var bodyRateGrace: Duration
    /// How long a response may wait for the client to take more of it (the socket's buffer full).
    public var sendTimeout: Duration
    /// Open connections at most; more wait in the listen backlog until one closes.
    public var maxConnections: Int

    public init(headerTimeout: Duration = .seconds(15), idleTimeout: Duration = .seconds(60), minimumBodyRate: Int = 240,
                bodyRateGrace: Duration = .seconds(5), sendTimeout: Duration = .seconds(30), maxConnections: Int = 1_000) {
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.minimumBodyRate = minimumBodyRate
        self.bodyRateGrace = bodyRateGrace
        self.sendTimeout = sendTimeout
        self.maxConnections = maxConnections
    }
}
