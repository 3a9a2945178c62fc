import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import StrataCore
import StrataOData
import StrataStorage

/// `POST /{service}/$batch`: runs queries through the same endpoint as single requests, and each
/// change set in one transaction, all or nothing; answers 202 with one part per operation.
///
/// A route, above the stages it runs: each part goes through parsing, authorization, execution
/// and serialization like a request of its own, and the parts are written as one multipart body.
struct BatchEndpoint: Sendable {
    let endpoint: ODataEndpoint
    let call: ODataCall
    let body: [UInt8]

    private var logger: Logger { call.logger }

    func respond() async throws -> Response {
        let request = try BatchRequest.parse(body: body, contentType: call.headers[.contentType])
        var writer = BatchResponseWriter()
        // The answers are held until the whole batch is done: together they may not pass the
        // server's bound on a response built whole; queries past it are answered with a 400 each.
        var remaining = call.settings.maxBufferedResponse
        for item in request.items {
            switch item {
            case .operation(let operation):
                let part = await query(operation, limit: remaining)
                remaining -= part.body.count
                writer.append(part)
            case .changeSet(let operations):
                switch await changeSet(operations) {
                case .success(let parts):
                    remaining -= parts.reduce(0) { $0 + $1.body.count }
                    writer.append(changeSet: parts)
                case .failure(let failure): writer.append(failure.part)
                }
            }
        }
        let bytes = writer.finish()
        return ODataResponse.body(bytes, status: .accepted,
                                  headers: [.contentType: writer.contentType, ODataResponse.dataServiceVersion: ODataVersion.v1.headerValue],
                                  headRequest: false)
    }

    /// A query outside any change set, answered by the read path exactly as if sent alone, with at
    /// most `limit` bytes of body.
    private func query(_ operation: BatchOperationRequest, limit: Int) async -> BatchPartResponse {
        let tooLarge = ODataError(status: 400, code: "ResponseTooLarge", message:
            "The answers of this $batch passed \(call.settings.maxBufferedResponse) bytes (the server's limit on a response it builds "
            + "whole), so this query was not answered. Send it in a $batch of its own or alone, or ask for less with $top or $select.")
        guard limit > 0 else { return BatchPartResponse(error: tooLarge, contentID: operation.contentID) }
        do {
            let sub = try subCall(operation, references: references(contentIDs: [:]))
            guard sub.method == .get || sub.method == .head else {
                throw ODataError.badRequest("\(sub.method.rawValue) \(operation.target.prefix(100)) changes data, so it must be inside a change set.")
            }
            let response = try await endpoint.respond(to: sub, body: .bytes([]), context: nil)
            return BatchPartResponse(status: response.status, headers: response.headers,
                                     body: try await Self.collect(response.body, limit: limit), contentID: operation.contentID)
        } catch is CollectedTooMuch {
            return BatchPartResponse(error: tooLarge, contentID: operation.contentID)
        } catch {
            return BatchPartResponse(error: ODataError.from(error, logger: logger), contentID: operation.contentID)
        }
    }

    private struct ChangeSetFailure: Error {
        var position: Int
        var contentID: String?
        var error: any Error
    }

    /// Every change of the set in one transaction; the first failure rolls all of them back.
    private func changeSet(_ operations: [BatchOperationRequest]) async -> Result<[BatchPartResponse], BatchPartResponseFailure> {
        let batch = self
        do {
            let parts = try await call.service.database.transaction { connection in
                var references = batch.references(contentIDs: [:])
                var parts: [BatchPartResponse] = []
                for (position, operation) in operations.enumerated() {
                    // Single-row statements run on this thread without suspending (see SQLiteSession):
                    // let other requests run between the operations of a long change set.
                    await Task.yield()
                    do {
                        let (result, response) = try await batch.change(operation, references: references, connection: connection)
                        if let id = operation.contentID, let entityPath = result.entityPath {
                            references.contentIDs[id] = entityPath
                        }
                        parts.append(BatchPartResponse(status: response.status, headers: response.headers, body: response.body,
                                                       contentID: operation.contentID))
                    } catch {
                        throw ChangeSetFailure(position: position, contentID: operation.contentID, error: error)
                    }
                }
                return parts
            }
            return .success(parts)
        } catch let failure as ChangeSetFailure {
            var error = ODataError.from(failure.error, logger: logger)
            let label = failure.contentID.map { " (Content-ID \($0))" } ?? ""
            error.message = "Operation \(failure.position + 1)\(label) of the change set failed, so none of its changes were made: \(error.message)"
            return .failure(BatchPartResponseFailure(part: BatchPartResponse(error: error, contentID: failure.contentID)))
        } catch {
            // The commit itself failed (the database went away): nothing of the change set was kept.
            return .failure(BatchPartResponseFailure(part: BatchPartResponse(error: ODataError.from(error, logger: logger))))
        }
    }

    private func change(_ operation: BatchOperationRequest, references: ServiceRelativeURL,
                        connection: any DatabaseConnection) async throws -> (WriteResult, WriteResponse.Parts) {
        let sub = try subCall(operation, references: references)
        guard sub.method != .get, sub.method != .head else {
            throw ODataError.badRequest("A change set holds only changes; send GET \(operation.target.prefix(100)) outside it.")
        }
        guard let first = sub.url.path.segments.first, !first.isSystem else {
            throw ODataError.badRequest("\(operation.target.prefix(100)) cannot be changed inside a change set.")
        }
        let path = try PathResolver(model: sub.service.model).resolve(sub.url.path)
        let access = try await endpoint.authorizer(for: sub).access(toWrite: path, method: sub.method)
        let request = try WriteRequest.parse(sub, path, body: operation.body, references: references)
        let write = WriteOperation(call: sub, request: request, access: try await access.including(request))
        let result = try await write.prepare().execute(in: connection)
        return (result, WriteResponse(call: sub).parts(result))
    }

    private func references(contentIDs: [String: String]) -> ServiceRelativeURL {
        ServiceRelativeURL(serviceName: call.service.name, serviceRoot: call.serviceRoot, contentIDs: contentIDs)
    }

    /// The call one operation of the batch makes: its own URL, method and headers; the batch's caller.
    private func subCall(_ operation: BatchOperationRequest, references: ServiceRelativeURL) throws(ODataError) -> ODataCall {
        let (path, query) = try references.split(operation.target)
        let url = try ODataRequestURL(rawPath: "/" + PercentEncoding.encodePathSegmentName(call.service.name) + "/" + path, rawQuery: query)
        return ODataCall(
            settings: call.settings, logger: call.logger, service: call.service, url: url,
            method: try ODataEndpoint.effectiveMethod(operation.method, headers: operation.headers),
            headers: operation.headers,
            // A V2 `$batch` holds V2 operations: V1 or V2, as each says, whatever the service's default.
            version: ContentNegotiation.version(
                ContentNegotiation.VersionRequest(maxDataServiceVersion: operation.headers[ODataResponse.maxDataServiceVersion],
                                                  dataServiceVersion: operation.headers[ODataResponse.dataServiceVersion]),
                serviceDefault: .v2, serviceMaximum: call.service.maxProtocolVersion),
            serviceRoot: call.serviceRoot, principal: call.principal)
    }

    /// The bytes of a response body, streamed ones included; throws ``CollectedTooMuch`` past
    /// `limit` bytes, having held no more than a piece beyond them.
    static func collect(_ body: ResponseBody, limit: Int = .max) async throws -> [UInt8] {
        let sink = ByteSink()
        try await body.write(CollectingWriter(sink: sink, limit: limit))
        return sink.bytes
    }
}

/// A response body collected for a `$batch` part passed its limit.
struct CollectedTooMuch: Error {}

struct BatchPartResponseFailure: Error {
    var part: BatchPartResponse
}

/// Collects a response body in memory (batch parts are written whole, with a Content-Length).
private final class ByteSink {
    var bytes: [UInt8] = []
}

private struct CollectingWriter: ResponseBodyWriter {
    let sink: ByteSink
    let limit: Int

    mutating func write(_ buffer: ByteBuffer) async throws {
        guard sink.bytes.count + buffer.readableBytes <= limit else { throw CollectedTooMuch() }
        sink.bytes.append(contentsOf: buffer.readableBytesView)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
