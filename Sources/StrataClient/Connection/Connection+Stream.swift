import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A part of a streamed response, in arrival order: the head, then body chunks.
enum StreamPart {
    case head(ResponseHead)
    case data(Data)
}

extension Connection {
    /// Sends `request` and hands its response to `receive` as it arrives, for bodies that do not
    /// end (a `text/event-stream`): the same URLSession and ``SessionDelegate`` as ``send(_:progress:)``,
    /// whose data task delegate reports each chunk from `didReceive data` as it comes, on Linux
    /// (FoundationNetworking) as on Apple platforms.
    ///
    /// Returns when the body ends or `receive` returns false (the transfer is then cancelled).
    /// `idleTimeout` is the longest silence allowed: a stream whose server sends heartbeats is dead
    /// when it is silent for longer. The caller handles authorization (it decides what a 401 means).
    ///
    /// - Throws: ``StrataError`` of kind ``StrataError/Kind/transport``, ``StrataError/Kind/timedOut``
    ///   (silent for `idleTimeout`), ``StrataError/Kind/cancelled`` (the calling task was cancelled)
    ///   or ``StrataError/Kind/invalidRequest``.
    nonisolated func stream(_ request: StrataRequest, authorization: String?, idleTimeout: TimeInterval,
                            receive: (StreamPart) -> Bool) async throws(StrataError) {
        let (urlRequest, sent) = try await prepareStream(request, authorization: authorization)
        let task = SendableTask(task: urlSession.dataTask(with: urlRequest))
        let timer = IdleTimer(timeout: idleTimeout)
        let updates = sessionDelegate.updates(for: task.task, onActivity: { timer.touch() })
        timer.start { task.task.cancel() }
        let failure: StrataError? = await withTaskCancellationHandler {
            if Task.isCancelled { return Self.cancelled(sent) }
            task.task.resume()
            var sawHead: ResponseHead?
            for await update in updates {
                switch update {
                case .sent:
                    continue
                case .response(let head):
                    sawHead = head
                    await emit(.didReceiveResponse(sent, head))
                    if !receive(.head(head)) {
                        task.task.cancel()
                        return nil
                    }
                case .data(let chunk):
                    if !receive(.data(chunk)) {
                        task.task.cancel()
                        return nil
                    }
                case .completed(let error?):
                    return Self.transportError(error, sent: sent)
                case .completed(nil):
                    guard let head = sawHead else {
                        return StrataError(.invalidResponse, method: sent.method, url: sent.url,
                                           message: "The server's answer is not an HTTP response.")
                    }
                    // Observers see the end of the exchange; the body went to `receive`, not here.
                    await emit(.didFinish(sent, StrataResponse(status: head.status, headers: head.headers, body: Data(), url: head.url, request: sent)))
                    return nil
                }
            }
            return Self.cancelled(sent)
        } onCancel: {
            task.task.cancel()
        }
        timer.stop()
        guard var failure else { return }
        if failure.kind == .cancelled, timer.didFire {
            failure = StrataError(.timedOut, method: sent.method, url: sent.url,
                                  message: "The stream was silent for \(Self.seconds(idleTimeout)).", underlying: failure.underlying)
        }
        await emit(.didFail(sent, failure))
        throw failure
    }

    /// The URL request for a stream, and the request as observers see it (announced as sent).
    private func prepareStream(_ request: StrataRequest, authorization: String?) throws(StrataError) -> (URLRequest, SentRequest) {
        let url = try url(for: request.path)
        let headers = positioned(configuration.defaultHeaders.merging(request.headers))
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 7 * 24 * 3600)
        urlRequest.httpMethod = request.method.rawValue
        for (name, value) in headers { urlRequest.addValue(value, forHTTPHeaderField: name) }
        if let authorization { urlRequest.setValue(authorization, forHTTPHeaderField: "Authorization") }
        urlRequest.httpBody = request.body
        var shownHeaders = headers
        if let shown = authorization ?? headers["Authorization"] { shownHeaders["Authorization"] = Self.redacted(shown) }
        let sent = SentRequest(id: nextRequestIdentifier(), method: request.method, url: url, headers: shownHeaders,
                               body: request.body, bodyFile: nil)
        emit(.willSend(sent))
        return (urlRequest, sent)
    }
}
