import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import StrataCore
import StrataOData
import StrataStorage

/// `POST /{service}/$batch`: runs queries through the same endpoint as single requests, and each
/// change set in one transaction, all or nothing; answers with one part per operation — 202 and
/// `multipart/mixed` in V2; in V4 200, `multipart/mixed` or OData 4.01's JSON batch format, as the
/// request came, stopping at the first failure unless the client prefers `odata.continue-on-error`.
///
/// A route, above the stages it runs: each part goes through parsing, authorization, execution
/// and serialization like a request of its own, and the parts are written as one multipart body.
struct BatchEndpoint: Sendable {
    let endpoint: ODataEndpoint
    let call: ODataCall
    let body: [UInt8]

    private var logger: Logger { call.logger }

    /// What one item of the batch came to.
    private enum Answer {
        case single(BatchPartResponse)
        case changeSet([BatchPartResponse], group: String?)
        /// A change set that made nothing: the failure, and the operations it held.
        case failedChangeSet(BatchPartResponse, [BatchOperationRequest])
    }

    func respond() async throws -> Response {
        let v4 = call.version.isV4
        let isJSON = v4 && (call.headers[.contentType]?.lowercased().hasPrefix("application/json") ?? false)
        let request = isJSON ? try BatchRequest.parseJSON(body: body) : try BatchRequest.parse(body: body, contentType: call.headers[.contentType])
        // V2 answers every part; V4 stops at the first failure unless the client prefers to go on.
        let continueOnError = !v4 || Self.prefersContinueOnError(call.headers)
        var answers: [Answer] = []
        // The answers are held until the whole batch is done: together they may not pass the
        // server's bound on a response built whole; queries past it are answered with a 400 each.
        var remaining = call.settings.maxBufferedResponse
        // A JSON batch's `$id` references reach every earlier request; a multipart one's stay in
        // their change set.
        var contentIDs: [String: String] = [:]
        var failed: Set<String> = []
        items: for item in request.items {
            switch item {
            case .operation(let operation):
                let part: BatchPartResponse
                if let blocker = operation.dependsOn.first(where: failed.contains) {
                    part = dependencyFailed(operation, on: blocker)
                } else {
                    part = await query(operation, limit: remaining, contentIDs: contentIDs)
                    remaining -= part.body.count
                }
                answers.append(.single(part))
                if part.status.code >= 400 {
                    failed.formUnion([operation.contentID].compactMap { $0 })
                    if !continueOnError { break items }
                }
            case .changeSet(let operations):
                let group = operations.first?.group
                if let blocker = operations.lazy.flatMap(\.dependsOn).first(where: failed.contains) {
                    answers.append(.failedChangeSet(dependencyFailed(operations[0], on: blocker), operations))
                } else {
                    switch await changeSet(operations, contentIDs: isJSON ? contentIDs : [:]) {
                    case .success(let (parts, references)):
                        remaining -= parts.reduce(0) { $0 + $1.body.count }
                        if isJSON { contentIDs = references }
                        answers.append(.changeSet(parts, group: group))
                        continue items
                    case .failure(let failure):
                        answers.append(.failedChangeSet(failure.part, operations))
                    }
                }
                failed.formUnion(operations.compactMap(\.contentID) + [group].compactMap { $0 })
                if !continueOnError { break items }
            }
        }
        let (bytes, contentType) = isJSON ? Self.writeJSON(answers) : Self.writeMultipart(answers)
        return ODataResponse.body(bytes, status: v4 ? .ok : .accepted,
                                  headers: [.contentType: contentType, ODataResponse.versionHeader(v4 ? .v4 : .v1): (v4 ? ODataVersion.v4 : .v1).headerValue],
                                  headRequest: false)
    }

    /// `Prefer: odata.continue-on-error` (also V4.0's `continue-on-error`).
    static func prefersContinueOnError(_ headers: HTTPFields) -> Bool {
        headers.preferenceTokens.contains { ($0.name == "odata.continue-on-error" || $0.name == "continue-on-error") && $0.value != "false" }
    }

    private func dependencyFailed(_ operation: BatchOperationRequest, on blocker: String) -> BatchPartResponse {
        BatchPartResponse(error: ODataError(status: 424, code: "FailedDependency",
                                            message: "This request depends on '\(blocker)', which failed, so it was not made."),
                          contentID: operation.contentID, version: call.version)
    }

    private static func writeMultipart(_ answers: [Answer]) -> ([UInt8], String) {
        var writer = BatchResponseWriter()
        for answer in answers {
            switch answer {
            case .single(let part): writer.append(part)
            case .changeSet(let parts, _): writer.append(changeSet: parts)
            case .failedChangeSet(let failure, _): writer.append(failure)
            }
        }
        let contentType = writer.contentType
        return (writer.finish(), contentType)
    }

    /// A failed atomicity group answers each of its requests: the one that failed with its error,
    /// the others 424, so that every id the client sent has its answer.
    private static func writeJSON(_ answers: [Answer]) -> ([UInt8], String) {
        var writer = BatchJSONResponseWriter()
        for answer in answers {
            switch answer {
            case .single(let part): writer.append(part)
            case .changeSet(let parts, let group): for part in parts { writer.append(part, group: group) }
            case .failedChangeSet(let failure, let operations):
                for operation in operations {
                    if operation.contentID == failure.contentID || failure.contentID == nil && operation.contentID == operations.first?.contentID {
                        var part = failure
                        part.contentID = operation.contentID
                        writer.append(part, group: operation.group)
                    } else {
                        let blocker = failure.contentID ?? "the commit"
                        writer.append(BatchPartResponse(error: ODataError(status: 424, code: "FailedDependency",
                                                                          message: "Request '\(blocker)' of the atomicity group failed, so none of its changes were made."),
                                                        contentID: operation.contentID, version: .v4), group: operation.group)
                    }
                }
            }
        }
        return (writer.finish(), BatchJSONResponseWriter.contentType)
    }

    /// A query outside any change set, answered by the read path exactly as if sent alone, with at
    /// most `limit` bytes of body.
    private func query(_ operation: BatchOperationRequest, limit: Int, contentIDs: [String: String]) async -> BatchPartResponse {
        let tooLarge = ODataError(status: 400, code: "ResponseTooLarge", message:
            "The answers of this $batch passed \(call.settings.maxBufferedResponse) bytes (the server's limit on a response it builds "
            + "whole), so this query was not answered. Send it in a $batch of its own or alone, or ask for less with $top or $select.")
        guard limit > 0 else { return BatchPartResponse(error: tooLarge, contentID: operation.contentID, version: call.version) }
        do {
            let sub = try subCall(operation, references: references(contentIDs: contentIDs))
            guard sub.method == .get || sub.method == .head else {
                throw ODataError.badRequest("\(sub.method.rawValue) \(operation.target.prefix(100)) changes data, so it must be inside a change set.")
            }
            let response = try await endpoint.respond(to: sub, body: .bytes([]), context: nil)
            return BatchPartResponse(status: response.status, headers: response.headers,
                                     body: try await Self.collect(response.body, limit: limit), contentID: operation.contentID)
        } catch is CollectedTooMuch {
            return BatchPartResponse(error: tooLarge, contentID: operation.contentID, version: call.version)
        } catch {
            return BatchPartResponse(error: ODataError.from(error, logger: logger), contentID: operation.contentID, version: call.version)
        }
    }

    private struct ChangeSetFailure: Error {
        var position: Int
        var contentID: String?
        var error: any Error
    }

    /// Every change of the set in one transaction; the first failure rolls all of them back. Answers
    /// the parts and the Content-IDs known after it (`contentIDs` and the set's own).
    private func changeSet(_ operations: [BatchOperationRequest], contentIDs: [String: String]) async
        -> Result<([BatchPartResponse], [String: String]), BatchPartResponseFailure> {
        let batch = self
        do {
            let result = try await call.service.database.transaction { connection in
                var references = batch.references(contentIDs: contentIDs)
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
                return (parts, references.contentIDs)
            }
            return .success(result)
        } catch let failure as ChangeSetFailure {
            var error = ODataError.from(failure.error, logger: logger)
            let label = failure.contentID.map { " (Content-ID \($0))" } ?? ""
            error.message = "Operation \(failure.position + 1)\(label) of the change set failed, so none of its changes were made: \(error.message)"
            return .failure(BatchPartResponseFailure(part: BatchPartResponse(error: error, contentID: failure.contentID, version: call.version)))
        } catch {
            // The commit itself failed (the database went away): nothing of the change set was kept.
            return .failure(BatchPartResponseFailure(part: BatchPartResponse(error: ODataError.from(error, logger: logger), version: call.version)))
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
            // A V4 `$batch` holds V4 operations. A V2 one holds V2 operations: V1 or V2, as each says,
            // whatever the service's default.
            version: call.version.isV4 ? .v4 : ContentNegotiation.version(
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
