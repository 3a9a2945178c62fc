import HTTPTypes
import Hummingbird
import NIOCore
import StrataCore
import StrataIdentity
import StrataOData
import StrataStorage

/// `GET /{service}/$feed?sets=A,B[&$filter=…][&since=TOKEN]`: the change stream as Server-Sent
/// Events. `Last-Event-ID` (sent by every EventSource when it reconnects) wins over `since`; without
/// either the stream starts now, with a `ready` event whose id is where it started.
///
/// A token that cannot be followed is answered `410 Gone` before the stream starts (EventSource
/// clients stop on a status other than 200); a stream that cannot go on ends with `event: gone`.
package struct FeedEndpoint: Sendable {
    let call: ODataCall
    let authorizer: Authorizer
    let hub: FeedHub
    let settings: FeedSettings
    /// The connection's hang-up signal: a client that goes away ends its stream at once, instead of
    /// holding its subscription (and the server's shutdown) until the next heartbeat fails to write.
    let hangUp: InterruptSignal?

    package init(call: ODataCall, authorizer: Authorizer, hub: FeedHub, settings: FeedSettings, hangUp: InterruptSignal? = nil) {
        self.call = call
        self.authorizer = authorizer
        self.hub = hub
        self.settings = settings
        self.hangUp = hangUp
    }

    static let lastEventID = HTTPField.Name("Last-Event-ID")!
    static let contentType = "text/event-stream; charset=utf-8"

    package func respond() async throws -> Response {
        guard call.method == .get else { throw ODataError.methodNotAllowed("$feed is read with GET (an EventSource).") }
        guard call.url.path.segments.count == 1, call.url.path.segments[0].key == nil else {
            throw ODataError.notFound("$feed takes no path below it; name the sets as $feed?sets=A,B.")
        }
        if let accept = call.headers[.accept], !accept.contains("text/event-stream"), !accept.contains("*/*") {
            throw ODataError.notAcceptable("$feed answers text/event-stream; send Accept: text/event-stream.")
        }
        let names = try FeedQuery.names(call.url.value(of: "sets"), option: "sets")
        let query = try await FeedQuery(call: call, authorizer: authorizer, names: names, allowedOptions: ["sets", "since"])
        let shape = query.shape
        let reload = "the sets (GET /\(call.service.name)/$tables?names=\(names.joined(separator: ","))&track=1)"
        var token: FeedToken?
        if let text = call.headers[Self.lastEventID] ?? call.url.value(of: "since"), !text.isEmpty {
            let opened = try await settings.open(text, reload: reload)
            guard opened.query == shape.query else {
                throw FeedSettings.gone("The token was issued for other sets or another $filter; subscribe with the token those gave.", reload: reload)
            }
            guard opened.rights == shape.rights else {
                throw FeedSettings.gone("What you may read of these sets changed since the token was issued.", reload: reload)
            }
            token = opened
        }
        let events: FeedHub.Events
        do {
            events = try await hub.subscribe(shape, from: token, hangUp: hangUp).events
        } catch is FeedHub.Replaced {
            throw ODataError.serviceUnavailable("The service was reloaded while the stream started; connect again (an EventSource does so by itself).")
        } catch is DeltaReader.Gone {
            throw FeedSettings.gone("Change tracking of these sets was switched off or restarted since the token was issued, or its changes were pruned.",
                                    reload: reload)
        }
        let headers: HTTPFields = [
            .contentType: Self.contentType, .cacheControl: "no-cache",
            // nginx would otherwise hold events in its proxy buffer.
            HTTPField.Name("X-Accel-Buffering")!: "no",
        ]
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            for await bytes in events {
                try await writer.write(ByteBuffer(bytes: bytes))
            }
            try await writer.finish(nil)
        })
    }
}
