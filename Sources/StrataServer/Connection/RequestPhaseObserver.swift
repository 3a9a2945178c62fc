import NIOCore
import NIOHTTPTypes

/// Tells the connection's ``ConnectionGuard`` where requests begin and end, as the HTTP decoder
/// sees them, and when responses start and finish. It changes nothing that passes through.
final class RequestPhaseObserver: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var connectionGuard: ConnectionGuard?

    func handlerAdded(context: ChannelHandlerContext) {
        // Added by the HTTP channel's set-up after the guard, in the same pipeline.
        connectionGuard = try? context.pipeline.syncOperations.handler(type: ConnectionGuard.self)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: connectionGuard?.requestHeadReceived()
        case .body: break
        case .end: connectionGuard?.requestEndReceived()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head: connectionGuard?.responseHeadWritten()
        case .body: break
        case .end: connectionGuard?.responseEndWritten()
        }
        context.write(data, promise: promise)
    }
}
