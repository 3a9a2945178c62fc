import Logging
import NIOCore
import NIOHTTP1
import StrataCore
import StrataOData

/// What HTTP/1 asks of a server that Hummingbird's channel, which converts every message to the
/// version-free HTTP types right behind NIO's decoder, cannot do by itself. It sits just before
/// that conversion, where the version of each request is still known:
///
/// - **HTTP/1.0.** A request without `Connection: keep-alive` is told to close (Hummingbird then
///   ends the connection after its answer, instead of holding it until the idle timeout). Its
///   answer is an HTTP/1.0 message, so that a body of unknown length is not sent chunked (which
///   HTTP/1.0 clients do not read) but delimited by closing the connection.
/// - **Malformed requests** (control characters in the request line, an unknown method, headers
///   over the decoder's limits) get a 400 with an OData error body that says what was wrong, where
///   Hummingbird sends an empty one. A request whose body turns out malformed (a chunk size of
///   `FFFFFFFFFFFFFFFF`, a body that ends before its `Content-Length`) is answered by the route
///   itself: the error reaches it while it reads the body (``ODataError/from(_:logger:)``).
final class HTTP1Conformance: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let logger: Logger
    // Touched only on the channel's event loop.
    /// The head of a request has arrived and its end has not.
    private var requestOpen = false
    /// Requests whose head has arrived, with their version and whether they asked to keep the
    /// connection, in order, until their answers' heads are written. Hummingbird answers them one
    /// at a time, in order.
    private var pending: [(version: HTTPVersion, keepAlive: Bool)] = []
    /// Requests whose answer has not been written to its end.
    private var unanswered = 0
    /// The answer being written is delimited by the end of the connection.
    private var closeAfterAnswer = false
    /// An answer to no request is being dropped (see ``write(context:data:promise:)``).
    private var droppingAnswer = false
    /// A malformed request that followed requests not yet answered: its 400 waits for them.
    private var deferredError: HTTPParserError?

    init(logger: Logger) {
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Nothing after a malformed request is read: its 400 ends the connection.
        guard deferredError == nil else { return }
        switch unwrapInboundIn(data) {
        case .head(var head):
            requestOpen = true
            unanswered += 1
            pending.append((head.version, head.isKeepAlive))
            if head.version.major == 1, head.version.minor == 0, !head.isKeepAlive {
                head.headers.replaceOrAdd(name: "connection", value: "close")
                return context.fireChannelRead(wrapInboundOut(.head(head)))
            }
        case .body:
            break
        case .end:
            requestOpen = false
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where head.status.code >= 200:
            guard !pending.isEmpty else {
                // No request waits for this answer: it is Hummingbird's empty 400 for a parse error
                // met while it skipped the rest of a body its route did not read, after the route's
                // answer. The client has its answer; the connection ends instead.
                droppingAnswer = true
                promise?.succeed()
                return
            }
            let request = pending.removeFirst()
            guard request.version.major == 1, request.version.minor == 0 else { break }
            head.version = .http1_0
            // An HTTP/1.0 client that asked to keep the connection may, when the answer says how long it is.
            let keep = request.keepAlive && head.headers.contains(name: "content-length")
                && !head.headers[canonicalForm: "connection"].contains { $0.lowercased() == "close" }
            head.headers.replaceOrAdd(name: "connection", value: keep ? "keep-alive" : "close")
            closeAfterAnswer = !keep
            return context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .head, .body:
            if droppingAnswer {
                promise?.succeed()
                return
            }
        case .end:
            if droppingAnswer {
                droppingAnswer = false
                promise?.succeed()
                return context.close(promise: nil)
            }
            unanswered = max(0, unanswered - 1)
            if closeAfterAnswer {
                closeAfterAnswer = false
                let loopBound = context.loopBound
                context.writeAndFlush(data).whenComplete { _ in loopBound.value.close(promise: nil) }
                promise?.succeed()
                return
            }
            if unanswered == 0, let error = deferredError {
                context.write(data, promise: promise)
                return answer(error, context: context)
            }
        }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parseError = error as? HTTPParserError else { return context.fireErrorCaught(error) }
        logger.info("Malformed HTTP request", metadata: [
            "error": .string(String(describing: parseError)), "peer": "\(context.remoteAddress?.description ?? "")",
        ])
        if requestOpen {
            // The body of the request being read: the route reading it gets the error and answers.
            // If it has answered already, there is nobody to tell but the connection.
            return unanswered > 0 ? context.fireErrorCaught(error) : context.close(promise: nil)
        }
        // A malformed request after complete ones: its 400 follows their answers.
        guard unanswered == 0 else {
            deferredError = parseError
            return
        }
        answer(parseError, context: context)
    }

    /// Writes the 400 for a malformed request and closes the connection.
    private func answer(_ error: HTTPParserError, context: ChannelHandlerContext) {
        deferredError = nil
        let body = ODataError.malformedHTTP(error).jsonBody
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: ODataResponse.jsonContentType)
        headers.add(name: "Content-Length", value: String(body.count))
        headers.add(name: "Connection", value: "close")
        var buffer = context.channel.allocator.buffer(capacity: body.count)
        buffer.writeBytes(body)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        let loopBound = context.loopBound
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in loopBound.value.close(promise: nil) }
    }
}
