import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1.1 channel with Strata's ``ConnectionGuard`` in front of it, at the socket,
/// ``HTTP1Conformance`` behind NIO's HTTP/1 decoder (where versions and parse errors are still
/// HTTP/1's), and a ``RequestPhaseObserver`` behind the conversion to HTTP types.
struct StrataHTTPChannel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let limits: ConnectionLimits

    init(responder: @escaping HTTPChannelHandler.Responder, limits: ConnectionLimits) {
        self.limits = limits
        self.http1 = HTTP1Channel(responder: responder, configuration: .init(additionalChannelHandlers: [RequestPhaseObserver()]))
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let limits = self.limits
        do {
            // Set-up runs on the channel's event loop.
            try channel.pipeline.syncOperations.addHandler(ConnectionGuard(limits: limits, logger: logger), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            // Still on the channel's event loop, before the first read.
            let pipeline = channel.pipeline.syncOperations
            let conversion = try pipeline.handler(type: HTTP1ToHTTPServerCodec.self)
            try pipeline.addHandler(HTTP1Conformance(logger: logger), position: .before(conversion))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with Strata's connection limits.
    static func strata(limits: ConnectionLimits) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in StrataHTTPChannel(responder: responder, limits: limits) }
    }
}
