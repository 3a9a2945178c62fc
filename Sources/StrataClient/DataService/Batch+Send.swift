import Foundation
import StrataCore

/// The answer to one part of a batch: a query's response, or a change set's responses (one per
/// operation when it succeeded; when it failed, the server's response for the failure, and none of
/// its writes were applied).
public struct BatchPartResult: Sendable {
    /// Whether the part was a change set.
    public var isChangeSet: Bool
    /// The responses, in operation order.
    public var responses: [Response]

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
        let boundary = Multipart.makeBoundary("batch")
        var framed: [Multipart.Part] = []
        for part in parts {
            switch part {
            case .query(let path):
                framed.append(Self.httpPart(.get, path, body: nil, headers: ["Accept": "application/json"]))
            case .changeSet(let operations):
                let changeBoundary = Multipart.makeBoundary("changeset")
                var changes: [Multipart.Part] = []
                for operation in operations {
                    var headers: HTTPHeaders = [:]
                    if operation.body != nil { headers["Content-Type"] = "application/json" }
                    // Entities created in this change set ($1) have no ETag yet.
                    let url = operation.path.hasPrefix("$") ? nil : try? service.connection.url(for: service.rootPath + operation.path)
                    if let etag = await operation.ifMatch.value(for: url, in: service.etags) {
                        headers["If-Match"] = etag
                    }
                    var part = Self.httpPart(operation.method, operation.path, body: operation.body, headers: headers)
                    part.headers["Content-ID"] = String(operation.contentID)
                    changes.append(part)
                }
                framed.append(Multipart.Part(headers: ["Content-Type": "multipart/mixed; boundary=\(changeBoundary)"],
                                             content: Multipart.write(changes, boundary: changeBoundary)))
            }
        }
        let request = Request(.post, service.rootPath + "$batch",
                              headers: ["Content-Type": "multipart/mixed; boundary=\(boundary)", "Accept": "multipart/mixed"],
                              body: Data(Multipart.write(framed, boundary: boundary)))
        let response = try await service.send(request)
        let results = try Self.read(response, expecting: parts)
        for result in results {
            for part in result.responses where part.isSuccess {
                if let entity = try? ResponseReader.entity(part) { await service.etags.record(entity) }
            }
        }
        return results
    }

    private static func httpPart(_ method: HTTPMethod, _ path: String, body: [UInt8]?, headers: HTTPHeaders) -> Multipart.Part {
        var all = headers
        if let body { all["Content-Length"] = String(body.count) }
        return Multipart.Part(headers: ["Content-Type": "application/http", "Content-Transfer-Encoding": "binary"],
                              content: Multipart.httpMessage(startLine: "\(method) \(path) HTTP/1.1", headers: all, body: body))
    }

    /// Reads the `multipart/mixed` answer: one part per request part, change sets nested.
    static func read(_ response: Response, expecting parts: [Part]) throws(StrataError) -> [BatchPartResult] {
        guard let boundary = Multipart.boundary(inContentType: response.headers["Content-Type"]),
              let bodyParts = Multipart.parse([UInt8](response.body), boundary: boundary) else {
            throw ResponseReader.invalid(response, "The $batch response is not multipart/mixed: \(response.text.prefix(120))")
        }
        guard bodyParts.count == parts.count else {
            throw ResponseReader.invalid(response, "The $batch response has \(bodyParts.count) parts for \(parts.count) requests")
        }
        var results: [BatchPartResult] = []
        for (bodyPart, requestPart) in zip(bodyParts, parts) {
            if let nested = Multipart.boundary(inContentType: bodyPart.headers["Content-Type"]) {
                guard let inner = Multipart.parse(bodyPart.content, boundary: nested) else {
                    throw ResponseReader.invalid(response, "A change set response has no parts")
                }
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

    private static func response(_ part: Multipart.Part, in batch: Response) throws(StrataError) -> Response {
        guard let http = Multipart.parseHTTPResponse(part.content) else {
            throw ResponseReader.invalid(batch, "A $batch part is not an HTTP response: \(String(decoding: part.content.prefix(80), as: UTF8.self))")
        }
        var headers = http.headers
        if let contentID = part.headers["Content-ID"], headers["Content-ID"] == nil { headers["Content-ID"] = contentID }
        return Response(status: http.status, headers: headers, body: Data(http.body), url: batch.url)
    }
}

extension Response {
    /// The single entity in a verbose JSON body (`{"d": {…}}`).
    public func entity() throws(StrataError) -> Entity {
        try ResponseReader.entity(self)
    }

    /// The collection page in a verbose JSON body, either shape.
    public func page() throws(StrataError) -> EntityPage {
        try ResponseReader.page(self)
    }
}
