import Logging
import NIOCore
import StrataCore
import StrataOData
import StrataStorage

/// Watches one connection at the socket: closes it when the client is too slow or silent (see
/// ``ConnectionLimits``), and fires its hang-up signal when the client goes away, so that the
/// statements of its request stop.
///
/// It is the first handler of the pipeline, where it sees every byte and every read the server
/// asks for; ``RequestPhaseObserver``, behind the HTTP decoder, tells it where requests begin and
/// end. A tick a second checks the deadlines: a request costs no timer of its own, only a few
/// field updates.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    let limits: ConnectionLimits
    private let logger: Logger
    let hangUp = InterruptSignal(reason: .abandoned)
    private var tick: Scheduled<Void>?

    // Where the exchange stands; touched only on the channel's event loop.
    /// Requests whose head has arrived and whose response has not ended.
    private var inFlight = 0
    /// When the server last finished a response and started waiting for the next request.
    private var idleSince = NIODeadline.now()
    /// When the first byte of a request that has not completed its head arrived.
    private var headStartedAt: NIODeadline?
    private var body: BodyProgress?
    private var responseStarted = false
    private var unwritableSince: NIODeadline?
    private var readRequestedAt: NIODeadline?

    /// A request body on its way: how much came, over how long the server was ready to read it.
    private struct BodyProgress {
        var bytes = 0
        var readyTime: TimeAmount = .zero
    }

    init(limits: ConnectionLimits, logger: Logger) {
        self.limits = limits
        self.logger = logger
    }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        ConnectionSignals.shared.register(hangUp, for: context.channel)
        idleSince = .now()
        scheduleTick(context)
    }

    private func scheduleTick(_ context: ChannelHandlerContext) {
        tick = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(1)) { [weak self] in
            guard let self, self.tick != nil else { return }
            self.check(context: context)
            if self.tick != nil { self.scheduleTick(context) }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop(context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop(context)
        context.fireChannelInactive()
    }

    private func stop(_ context: ChannelHandlerContext) {
        tick?.cancel()
        tick = nil
        hangUp.fire()
        ConnectionSignals.shared.remove(for: context.channel)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The client shut down its side: it sends no more and, as nginx also assumes, waits for
        // nothing — unless it did so in the middle of a request body, which is then cut short:
        // the route reading the body gets that error and answers 400 (stopping its statements
        // instead would answer 503, as if trying again could help).
        if let event = event as? ChannelEvent, case .inputClosed = event, body == nil { hangUp.fire() }
        context.fireUserInboundEventTriggered(event)
    }

    // MARK: Traffic

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data).readableBytes
        if body != nil {
            body?.bytes += bytes
        } else if inFlight == 0, headStartedAt == nil, bytes > 0 {
            headStartedAt = .now()
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if let requested = readRequestedAt, var progress = body {
            progress.readyTime = progress.readyTime + (.now() - requested)
            body = progress
        }
        readRequestedAt = nil
        context.fireChannelReadComplete()
    }

    func read(context: ChannelHandlerContext) {
        if readRequestedAt == nil { readRequestedAt = .now() }
        context.read()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        unwritableSince = context.channel.isWritable ? nil : (unwritableSince ?? .now())
        context.fireChannelWritabilityChanged()
    }

    // MARK: Requests (told by RequestPhaseObserver)

    func requestHeadReceived() {
        inFlight += 1
        headStartedAt = nil
        body = BodyProgress()
        responseStarted = false
    }

    func requestEndReceived() {
        body = nil
    }

    func responseHeadWritten() {
        responseStarted = true
    }

    func responseEndWritten() {
        inFlight = max(0, inFlight - 1)
        if inFlight == 0 {
            idleSince = .now()
            responseStarted = false
        }
    }

    // MARK: Deadlines

    private func check(context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        if let since = unwritableSince, now - since > TimeAmount(limits.sendTimeout) {
            return close(context, "the client took no more of the response within the send timeout")
        }
        if var body {
            if let requested = readRequestedAt { body.readyTime = body.readyTime + (now - requested) }
            let seconds = Double(body.readyTime.nanoseconds) / 1e9
            if body.readyTime > TimeAmount(limits.bodyRateGrace), Double(body.bytes) < Double(limits.minimumBodyRate) * seconds {
                return timeOut(context, "The request body arrived slower than \(limits.minimumBodyRate) bytes per second.")
            }
            return
        }
        guard inFlight == 0 else { return }
        if let started = headStartedAt, now - started > TimeAmount(limits.headerTimeout) {
            return timeOut(context, "The request's head did not arrive within \(StorageError.seconds(limits.headerTimeout)).")
        }
        // Silent since it opened or since its last response (a browser may open connections ahead).
        if headStartedAt == nil, now - idleSince > TimeAmount(limits.idleTimeout) {
            close(context, "silent for the idle timeout")
        }
    }

    private func close(_ context: ChannelHandlerContext, _ reason: String) {
        logger.debug("Closing a connection", metadata: ["reason": .string(reason), "peer": "\(context.remoteAddress?.description ?? "")"])
        context.close(promise: nil)
    }

    /// Answers `408` (unless a response has begun) and closes the connection.
    private func timeOut(_ context: ChannelHandlerContext, _ message: String) {
        guard !responseStarted else { return close(context, message) }
        logger.info("Request timed out", metadata: ["reason": .string(message), "peer": "\(context.remoteAddress?.description ?? "")"])
        let error = ODataError(status: 408, code: "RequestTimeout", message: message + " The connection is closed; send the request again.")
        let bytes = error.jsonBody
        var head = "HTTP/1.1 408 Request Timeout\r\nContent-Type: \(ODataResponse.jsonContentType)\r\n"
        head += "Connection: close\r\nContent-Length: \(bytes.count)\r\n\r\n"
        var buffer = context.channel.allocator.buffer(capacity: head.utf8.count + bytes.count)
        buffer.writeString(head)
        buffer.writeBytes(bytes)
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(buffer))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        self = .nanoseconds(Int64(duration / .nanoseconds(1)))
    }
}
