import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Connection {
    /// Sends one request over URLSession and follows it to the end, emitting its events in order.
    /// With a `destination`, a successful response's body goes to that file instead of memory;
    /// `inPlace`, straight into it as it arrives (else into a file that replaces it at the end).
    func perform(_ request: StrataRequest, authorization: String?, destination: URL? = nil, inPlace: Bool = false,
                 progress: (@Sendable (TransferProgress) -> Void)?) async throws(StrataError) -> StrataResponse {
        let url = try url(for: request.path)
        if let file = request.bodyFile, !FileManager.default.isReadableFile(atPath: file.path) {
            throw StrataError(.invalidRequest, method: request.method, url: url, message: "There is no readable file at \(file.path) to send.")
        }
        let headers = positioned(configuration.defaultHeaders.merging(request.headers))
        let timeout = request.timeout ?? configuration.timeout
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method.rawValue
        for (name, value) in headers { urlRequest.addValue(value, forHTTPHeaderField: name) }
        if let authorization { urlRequest.setValue(authorization, forHTTPHeaderField: "Authorization") }
        if request.bodyFile == nil { urlRequest.httpBody = request.body }

        var shownHeaders = headers
        if let shown = authorization ?? headers["Authorization"] { shownHeaders["Authorization"] = Self.redacted(shown) }
        let sent = SentRequest(id: nextRequestIdentifier(), method: request.method, url: url, headers: shownHeaders,
                               body: request.bodyFile == nil ? request.body : nil, bodyFile: request.bodyFile)
        emit(.willSend(sent))
        let started = Date()

        let outcome: Result<StrataResponse, StrataError>
        if Task.isCancelled {
            outcome = .failure(Self.cancelled(sent))
        } else {
            let task = request.bodyFile.map { session(uploadTaskWith: urlRequest, fromFile: $0) } ?? session(dataTaskWith: urlRequest)
            let timer = IdleTimer(timeout: timeout)
            let updates = sessionDelegate.updates(for: task.task, onActivity: { timer.touch() })
            timer.start { task.task.cancel() }
            let followed = await withTaskCancellationHandler {
                task.task.resume()
                return await follow(updates, of: sent, timer: timer, destination: destination, inPlace: inPlace, cancel: { task.task.cancel() },
                                    progress: progress)
            } onCancel: {
                task.task.cancel()
            }
            timer.stop()
            if case .failure(let error) = followed, error.kind == .cancelled, timer.didFire {
                outcome = .failure(StrataError(.timedOut, method: sent.method, url: sent.url,
                                               message: "The server did not answer within \(Self.seconds(timeout)).",
                                               underlying: error.underlying))
            } else {
                outcome = followed
            }
        }
        let duration = Date().timeIntervalSince(started)
        switch outcome {
        case .success(let response):
            remember(positionFrom: response.headers)
            record(Exchange(request: sent, response: response, error: nil, startedAt: started, duration: duration))
            emit(.didFinish(sent, response))
            return response
        case .failure(let error):
            record(Exchange(request: sent, response: nil, error: error, startedAt: started, duration: duration))
            emit(.didFail(sent, error))
            throw error
        }
    }

    private nonisolated func session(dataTaskWith request: URLRequest) -> SendableTask {
        SendableTask(task: urlSession.dataTask(with: request))
    }

    /// An upload task reads the body from the file as it sends it.
    private nonisolated func session(uploadTaskWith request: URLRequest, fromFile file: URL) -> SendableTask {
        SendableTask(task: urlSession.uploadTask(with: request, fromFile: file))
    }

    /// Reads a task's updates until it completes, collecting the body (or writing it to
    /// `destination` when the status is a success) and reporting progress.
    private func follow(_ updates: AsyncStream<TaskUpdate>, of sent: SentRequest, timer: IdleTimer, destination: URL?, inPlace: Bool,
                        cancel: @Sendable () -> Void,
                        progress: (@Sendable (TransferProgress) -> Void)?) async -> Result<StrataResponse, StrataError> {
        var head: ResponseHead?
        var body = Data()
        var received: Int64 = 0
        var uploaded: Int64 = 0
        var file: DownloadFile?
        // Whatever ends the transfer early leaves no partial file behind.
        defer { file?.discard() }
        for await update in updates {
            timer.touch()
            switch update {
            case .sent(let bytes, let expected):
                uploaded += bytes
                report(TransferProgress(direction: .upload, completedBytes: uploaded, expectedBytes: expected > 0 ? expected : nil),
                       for: sent, to: progress)
            case .response(let answer):
                head = answer
                if let destination, (200..<300).contains(answer.status) {
                    do {
                        file = try DownloadFile(destination: destination, inPlace: inPlace)
                    } catch {
                        cancel()
                        return .failure(Self.fileError(error, sent: sent, destination: destination))
                    }
                } else if let expected = answer.expectedLength, expected > 0 {
                    // Reserve up to 16 MiB ahead; a larger announced length grows as it arrives.
                    body.reserveCapacity(Int(min(expected, 16 << 20)))
                }
                emit(.didReceiveResponse(sent, answer))
            case .data(let chunk):
                received += Int64(chunk.count)
                if let file {
                    do {
                        try file.write(chunk)
                    } catch {
                        cancel()
                        return .failure(Self.fileError(error, sent: sent, destination: file.destination))
                    }
                } else {
                    body.append(chunk)
                }
                report(TransferProgress(direction: .download, completedBytes: received, expectedBytes: head?.expectedLength),
                       for: sent, to: progress)
            case .completed(let error?):
                return .failure(Self.transportError(error, sent: sent))
            case .completed(nil):
                guard let head else {
                    return .failure(StrataError(.invalidResponse, method: sent.method, url: sent.url,
                                                message: "The server's answer is not an HTTP response."))
                }
                if let written = file {
                    do {
                        try written.commit()
                        file = nil
                    } catch {
                        return .failure(Self.fileError(error, sent: sent, destination: written.destination))
                    }
                }
                return .success(StrataResponse(status: head.status, headers: head.headers, body: body, url: head.url, request: sent))
            }
        }
        // The stream ends without completion only when the waiting task was cancelled.
        return .failure(Self.cancelled(sent))
    }

    private func report(_ value: TransferProgress, for sent: SentRequest, to handler: (@Sendable (TransferProgress) -> Void)?) {
        handler?(value)
        emit(.progress(sent, value))
    }

    static func cancelled(_ sent: SentRequest) -> StrataError {
        StrataError(.cancelled, method: sent.method, url: sent.url, message: "The request was cancelled.", underlying: CancellationError())
    }

    static func transportError(_ error: any Error, sent: SentRequest) -> StrataError {
        let nsError = error as NSError
        guard nsError.domain == NSURLErrorDomain else {
            return StrataError(.transport, method: sent.method, url: sent.url, message: nsError.localizedDescription, underlying: error)
        }
        switch nsError.code {
        case NSURLErrorCancelled:
            return cancelled(sent)
        case NSURLErrorTimedOut:
            return StrataError(.timedOut, method: sent.method, url: sent.url,
                               message: "The server did not answer in time.", underlying: error)
        case NSURLErrorCannotConnectToHost:
            return StrataError(.transport, method: sent.method, url: sent.url,
                               message: "Could not connect to \(sent.url.host ?? "the server"); is it running?", underlying: error)
        default:
            return StrataError(.transport, method: sent.method, url: sent.url, message: nsError.localizedDescription, underlying: error)
        }
    }

    static func fileError(_ error: any Error, sent: SentRequest, destination: URL) -> StrataError {
        StrataError(.invalidRequest, method: sent.method, url: sent.url,
                    message: "The download could not be written to \(destination.path): \(error.localizedDescription)", underlying: error)
    }

    static func seconds(_ interval: TimeInterval) -> String {
        interval == interval.rounded() ? "\(Int(interval)) seconds" : "\(interval) seconds"
    }

    /// `Bearer <redacted>`: the scheme stays visible, the credentials do not.
    static func redacted(_ authorization: String) -> String {
        let scheme = authorization.split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
        return scheme.isEmpty ? "<redacted>" : "\(scheme) <redacted>"
    }
}

/// A URLSession task handed to the cancellation handler.
///
/// `@unchecked Sendable`: URLSessionTask is documented as thread-safe (`resume` and `cancel` may be
/// called from any thread) but is not annotated `Sendable` in swift-corelibs-foundation.
struct SendableTask: @unchecked Sendable {
    let task: URLSessionDataTask
}
