import Foundation

/// The `multipart/mixed` framing of `$batch` requests and responses (RFC 2046 as OData V2 uses it):
/// parts separated by `--boundary` lines, each with MIME headers, a blank line and content, which is
/// an HTTP request or response (`application/http`) or a nested multipart change set.
enum Multipart {
    struct Part {
        var headers: HTTPHeaders
        var content: [UInt8]
    }

    /// A boundary no body will contain by chance.
    static func makeBoundary(_ prefix: String) -> String {
        prefix + "_" + UUID().uuidString.lowercased()
    }

    /// Frames parts between boundary lines, ending with the close delimiter.
    static func write(_ parts: [Part], boundary: String) -> [UInt8] {
        var out: [UInt8] = []
        for part in parts {
            out += Array("--\(boundary)\r\n".utf8)
            for (name, value) in part.headers { out += Array("\(name): \(value)\r\n".utf8) }
            out += Array("\r\n".utf8)
            out += part.content
            out += Array("\r\n".utf8)
        }
        out += Array("--\(boundary)--\r\n".utf8)
        return out
    }

    /// An HTTP/1.1 message as the content of an `application/http` part.
    static func httpMessage(startLine: String, headers: HTTPHeaders, body: [UInt8]?) -> [UInt8] {
        var out = Array("\(startLine)\r\n".utf8)
        for (name, value) in headers { out += Array("\(name): \(value)\r\n".utf8) }
        out += Array("\r\n".utf8)
        if let body { out += body }
        return out
    }

    /// The `boundary` parameter of a `multipart/…` content type.
    static func boundary(inContentType contentType: String?) -> String? {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/") else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else { continue }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return value
        }
        return nil
    }

    /// Splits a multipart body into its parts; nil when the body has no boundary line.
    static func parse(_ body: [UInt8], boundary: String) -> [Part]? {
        let delimiter = Array("--\(boundary)".utf8)
        var parts: [Part] = []
        guard var position = find(delimiter, in: body, from: 0) else { return nil }
        while true {
            var cursor = position + delimiter.count
            // The close delimiter ends the body.
            if cursor + 1 < body.count, body[cursor] == UInt8(ascii: "-"), body[cursor + 1] == UInt8(ascii: "-") { break }
            cursor = skipLine(body, from: cursor)
            guard let next = find(delimiter, in: body, from: cursor) else { break }
            var end = next
            // The line break before a delimiter belongs to the delimiter.
            if end > cursor, body[end - 1] == 0x0A { end -= 1 }
            if end > cursor, body[end - 1] == 0x0D { end -= 1 }
            let (headers, contentStart) = readHeaders(body, from: cursor, end: end)
            parts.append(Part(headers: headers, content: Array(body[contentStart..<end])))
            position = next
        }
        return parts
    }

    /// Reads an HTTP response out of an `application/http` part: status, headers, body.
    static func parseHTTPResponse(_ content: [UInt8]) -> (status: Int, headers: HTTPHeaders, body: [UInt8])? {
        let lineEnd = skipLine(content, from: 0)
        let statusLine = String(decoding: content[0..<lineEnd], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let fields = statusLine.split(separator: " ", maxSplits: 2)
        guard fields.count >= 2, fields[0].hasPrefix("HTTP/"), let status = Int(fields[1]) else { return nil }
        let (headers, bodyStart) = readHeaders(content, from: lineEnd, end: content.count)
        return (status, headers, Array(content[bodyStart...]))
    }

    /// Header lines from `start` up to the first empty line; returns them and where content begins.
    private static func readHeaders(_ bytes: [UInt8], from start: Int, end: Int) -> (HTTPHeaders, Int) {
        var headers = HTTPHeaders()
        var cursor = start
        while cursor < end {
            let next = min(skipLine(bytes, from: cursor), end)
            let line = String(decoding: bytes[cursor..<next], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            cursor = next
            if line.isEmpty { break }
            if let colon = line.firstIndex(of: ":") {
                headers.add(name: String(line[..<colon]).trimmingCharacters(in: .whitespaces),
                            value: String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
            }
        }
        return (headers, cursor)
    }

    /// The index after the next line feed (or the end).
    private static func skipLine(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.count, bytes[index] != 0x0A { index += 1 }
        return min(index + 1, bytes.count)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        var index = start
        let last = haystack.count - needle.count
        while index <= last {
            // A delimiter only counts at the start of a line.
            if haystack[index] == needle[0], index == 0 || haystack[index - 1] == 0x0A,
               haystack[index..<(index + needle.count)].elementsEqual(needle) {
                return index
            }
            index += 1
        }
        return nil
    }
}
