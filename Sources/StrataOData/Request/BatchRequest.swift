import HTTPTypes
import StrataCore

/// A `$batch` request body as OData V2 defines it: a `multipart/mixed` message whose parts are
/// either single operations (`application/http`, queries only) or change sets (nested
/// `multipart/mixed` whose parts are `application/http` changes, optionally with a `Content-ID`).
package struct BatchRequest: Sendable {
    package enum Item: Sendable {
        case operation(BatchOperationRequest)
        case changeSet([BatchOperationRequest])
    }

    package var items: [Item]
    /// A JSON batch's atomicity group names, which `dependsOn` may name too.
    package var groups: Set<String> = []

    /// More operations than this in one batch are refused before any runs.
    static let maximumOperations = 5_000

    package static func parse(body: [UInt8], contentType: String?) throws(ODataError) -> BatchRequest {
        guard let boundary = MultipartMixed.boundary(of: contentType) else {
            throw .badRequest("$batch needs Content-Type: multipart/mixed; boundary=… (the OData batch format).")
        }
        var items: [Item] = []
        var count = 0
        // A Content-ID names one operation of the whole batch; a second use would make `$id` ambiguous.
        var contentIDs = Set<String>()
        func register(_ operation: BatchOperationRequest, _ location: String) throws(ODataError) {
            guard let id = operation.contentID else { return }
            guard contentIDs.insert(id).inserted else {
                throw .badRequest("The Content-ID '\(id.prefix(60))' of the \(location) is used by an earlier operation of the batch; give each operation its own.")
            }
        }
        for (index, part) in try MultipartMixed.parts(of: body[...], boundary: boundary, what: "$batch body").enumerated() {
            let type = part.header("Content-Type")?.lowercased() ?? ""
            if type.hasPrefix("multipart/mixed") {
                guard let inner = MultipartMixed.boundary(of: part.header("Content-Type")) else {
                    throw .badRequest("Part \(index + 1) of the batch is a change set without a boundary parameter.")
                }
                let changes = try MultipartMixed.parts(of: part.body, boundary: inner, what: "change set in part \(index + 1)")
                var operations: [BatchOperationRequest] = []
                for (position, change) in changes.enumerated() {
                    let where_ = "operation \(position + 1) of the change set in part \(index + 1)"
                    if change.header("Content-Type")?.lowercased().hasPrefix("multipart/") == true {
                        throw .badRequest("The \(where_) is a nested change set; change sets cannot nest.")
                    }
                    let operation = try BatchOperationRequest.parse(change, where: where_)
                    try register(operation, where_)
                    operations.append(operation)
                }
                count += operations.count
                items.append(.changeSet(operations))
            } else {
                let operation = try BatchOperationRequest.parse(part, where: "part \(index + 1) of the batch")
                try register(operation, "part \(index + 1) of the batch")
                items.append(.operation(operation))
                count += 1
            }
            guard count <= maximumOperations else {
                throw .badRequest("The batch holds more than \(maximumOperations) operations; split it.")
            }
        }
        return BatchRequest(items: items)
    }
}

/// One HTTP request inside a batch: `GET Person(1) HTTP/1.1`, its headers and body.
package struct BatchOperationRequest: Sendable {
    package var method: HTTPRequest.Method
    /// The URL as written: relative to the service root, an absolute path or URL, or `$n/…`.
    package var target: String
    package var headers: HTTPFields
    package var body: [UInt8]
    /// The part's `Content-ID`, by which later operations of the same change set refer to it (a
    /// JSON batch request's `id`).
    package var contentID: String?
    /// A JSON batch request's `dependsOn`: requests or atomicity groups that must have succeeded.
    package var dependsOn: [String] = []
    /// A JSON batch request's `atomicityGroup`.
    package var group: String?

    static func parse(_ part: MultipartMixed.Part, where location: String) throws(ODataError) -> BatchOperationRequest {
        let type = part.header("Content-Type")?.lowercased() ?? ""
        guard type.hasPrefix("application/http") else {
            throw .badRequest("The \(location) must have Content-Type: application/http, not '\(type.prefix(60))'.")
        }
        if let encoding = part.header("Content-Transfer-Encoding"), encoding.lowercased() != "binary" {
            throw .badRequest("The \(location) uses Content-Transfer-Encoding \(encoding.prefix(30)); only binary is supported.")
        }
        let (requestLine, afterLine) = MultipartMixed.firstLine(part.body.drop { $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") })
        let words = requestLine.split(separator: " ", omittingEmptySubsequences: true)
        guard words.count == 3 || words.count == 2, let method = HTTPRequest.Method(String(words[0])) else {
            throw .badRequest("The \(location) does not start with a request line such as 'GET Person(1) HTTP/1.1': '\(requestLine.prefix(100))'.")
        }
        let (headerLines, rest) = try MultipartMixed.headerBlock(afterLine, what: location)
        var headers = HTTPFields()
        for (name, value) in headerLines {
            guard let field = HTTPField.Name(name) else {
                throw .badRequest("The \(location) has an invalid header name '\(name.prefix(60))'.")
            }
            headers.append(HTTPField(name: field, value: value))
        }
        var body = rest
        if let length = headers[.contentLength].flatMap({ Int($0) }), length >= 0, length <= body.count {
            body = body.prefix(length)
        }
        let contentID = part.header("Content-ID") ?? headers[HTTPField.Name("Content-ID")!]
        return BatchOperationRequest(method: method, target: String(words[1]), headers: headers, body: Array(body), contentID: contentID)
    }
}
