import Foundation
import StrataCore

/// The answer to one part of a batch: a query's response, or a change set's responses (one per
/// operation when it succeeded; when it failed, the server's response for the failure, and none of
/// its writes were applied).
public struct BatchPartResult: Sendable {
    /// Whether the part was a change set.
    public var isChangeSet: Bool
    /// The responses, in operation order.
    public var responses: [StrataResponse]

    /// True when every response is a success.
    public var succeeded: Bool { !responses.isEmpty && responses.allSatisfy(\.isSuccess) }

    /// The first failure as an error, or nil when the part succeeded.
    public var error: StrataError? {
        responses.first { !$0.isSuccess }.map(StrataError.init(response:))
    }
}

extension Batch {
    /// Sends the batch and returns one result per part, in order.
    ///
    /// A failing change set does not make this throw: its result carries the failure, and other
    /// parts are unaffected. It throws when the batch as a whole is refused or unreadable.
    public func send() async throws(StrataError) -> [BatchPartResult] {
        var writer = MultipartMixed.Writer(boundary: MultipartMixed.makeBoundary("batch"))
        for part in parts {
            switch part {
            case .query(let path):
                Self.writeHTTPPart(&writer, .get, path, body: nil, headers: ["Accept": "application/json"], contentID: nil)
            case .changeSet(let operations):
                writer.startChangeSet(boundary: MultipartMixed.makeBoundary("changeset"))
                for operation in operations {
                    var headers: StrataHeaders = [:]
                    if operation.body != nil { headers["Content-Type"] = "application/json" }
                    // Entities created in this change set ($1) have no ETag yet.
                    let url = operation.path.hasPrefix("$") ? nil : try? service.connection.url(for: service.rootPath + operation.path)
                    if let etag = await operation.ifMatch.value(for: url, in: service.etags) {
                        headers["If-Match"] = etag
                    }
                    Self.writeHTTPPart(&writer, operation.method, operation.path, body: operation.body, headers: headers,
                                       contentID: String(operation.contentID))
                }
                writer.endChangeSet()
            }
        }
        let contentType = writer.contentType
        let request = StrataRequest(.post, service.rootPath + "$batch",
                                    headers: ["Content-Type": contentType, "Accept": "multipart/mixed"],
                                    body: Data(writer.finish()))
        let response = try await service.send(request)
        let results = try Self.read(response, expecting: parts)
        for result in results {
            for part in result.responses where part.isSuccess {
                if let entity = try? ResponseReader.entity(part) { await service.etags.record(entity) }
            }
        }
        return results
    }

    /// One operation as an `application/http` part: its request line, headers and body.
    private static func writeHTTPPart(_ writer: inout MultipartMixed.Writer, _ method: StrataRequest.Method, _ path: String,
                                      body: [UInt8]?, headers: StrataHeaders, contentID: String?) {
        writer.startPart()
        writer.writeHeader("Content-Type", "application/http")
        writer.writeHeader("Content-Transfer-Encoding", "binary")
        if let contentID { writer.writeHeader("Content-ID", contentID) }
        writer.endHeaders()
        writer.write("\(method) \(path) HTTP/1.1\r\n")
        for (name, value) in headers { writer.writeHeader(name, value) }
        if let body { writer.writeHeader("Content-Length", String(body.count)) }
        writer.endHeaders()
        if let body { writer.write(body) }
        writer.endPart()
    }

    /// Reads the `multipart/mixed` answer: one part per request part, change sets nested.
    static func read(_ response: StrataResponse, expecting parts: [Part]) throws(StrataError) -> [BatchPartResult] {
        guard let boundary = MultipartMixed.boundary(of: response.headers["Content-Type"]) else {
            throw ResponseReader.invalid(response, "The $batch response is not multipart/mixed: \(response.text.prefix(120))")
        }
        let bodyParts = try multipartParts(of: [UInt8](response.body)[...], boundary: boundary, what: "$batch response", in: response)
        guard bodyParts.count == parts.count else {
            throw ResponseReader.invalid(response, "The $batch response has \(bodyParts.count) parts for \(parts.count) requests")
        }
        var results: [BatchPartResult] = []
        for (bodyPart, requestPart) in zip(bodyParts, parts) {
            if let nested = MultipartMixed.boundary(of: bodyPart.header("Content-Type")) {
                let inner = try multipartParts(of: bodyPart.body, boundary: nested, what: "change set response", in: response)
                results.append(BatchPartResult(isChangeSet: true, responses: try inner.map { part throws(StrataError) in
                    try Self.response(part, in: response)
                }))
            } else {
                var isChangeSet = false
                if case .changeSet = requestPart { isChangeSet = true }
                results.append(BatchPartResult(isChangeSet: isChangeSet, responses: [try Self.response(bodyPart, in: response)]))
            }
        }
        return results
    }

    private static func multipartParts(of body: ArraySlice<UInt8>, boundary: String, what: String,
                                       in response: StrataResponse) throws(StrataError) -> [MultipartMixed.Part] {
        do {
            return try MultipartMixed.parts(of: body, boundary: boundary, what: what)
        } catch {
            throw ResponseReader.invalid(response, error.message)
        }
    }

    /// The HTTP response inside an `application/http` part; the part's `Content-ID` is kept among
    /// its headers so that a caller can match it to its operation.
    private static func response(_ part: MultipartMixed.Part, in batch: StrataResponse) throws(StrataError) -> StrataResponse {
        let (statusLine, afterLine) = MultipartMixed.firstLine(part.body)
        let words = statusLine.split(separator: " ", maxSplits: 2)
        guard words.count >= 2, words[0].hasPrefix("HTTP/"), let status = Int(words[1]) else {
            throw ResponseReader.invalid(batch, "A $batch part is not an HTTP response: \(String(decoding: part.body.prefix(80), as: UTF8.self))")
        }
        let fields: [(name: String, value: String)]
        let body: ArraySlice<UInt8>
        do {
            (fields, body) = try MultipartMixed.headerBlock(afterLine, what: "$batch part")
        } catch {
            throw ResponseReader.invalid(batch, error.message)
        }
        var headers = StrataHeaders(fields)
        if let contentID = part.header("Content-ID"), headers["Content-ID"] == nil { headers["Content-ID"] = contentID }
        return StrataResponse(status: status, headers: headers, body: Data(body), url: batch.url)
    }
}

extension StrataResponse {
    /// The single entity in a verbose JSON body (`{"d": {…}}`).
    public func entity() throws(StrataError) -> Entity {
        try ResponseReader.entity(self)
    }

    /// The collection page in a verbose JSON body, either shape.
    public func page() throws(StrataError) -> EntityPage {
        try ResponseReader.page(self)
    }
}
