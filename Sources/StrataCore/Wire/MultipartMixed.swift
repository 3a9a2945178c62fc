import Foundation

/// Reads the `multipart/mixed` framing of `$batch` requests and responses (RFC 2046 as OData V2
/// uses it): parts separated by `--boundary` lines, each with MIME headers, a blank line and
/// content, which is an HTTP message (`application/http`) or a nested multipart change set.
///
/// The server reads requests and the client reads responses with these same functions; both
/// write with ``MultipartMixed/Writer``. Lines may end in CRLF or, from lenient peers, in LF alone.
///
/// Named for the one content type it handles. Apps see it through StrataClient's re-export of
/// StrataCore, so the name, its ``Part`` and its ``Writer`` stay clear of multipart libraries'
/// (MultipartKit's `MultipartPart`, Alamofire's `MultipartFormData`).
public enum MultipartMixed {
    /// A boundary no body will contain by chance: `prefix`, an underscore and a random UUID.
    public static func makeBoundary(_ prefix: String) -> String {
        prefix + "_" + UUID().uuidString.lowercased()
    }

    /// The `boundary` parameter of a `multipart/mixed` content type; nil for any other type, or
    /// when the boundary is missing or not the 1 to 70 characters RFC 2046 allows.
    public static func boundary(of contentType: String?) -> String? {
        guard let contentType else { return nil }
        let pieces = contentType.split(separator: ";").map { trimmed($0) }
        guard pieces.first?.lowercased() == "multipart/mixed" else { return nil }
        for parameter in pieces.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { trimmed($0) }
            guard pair.count == 2, pair[0].lowercased() == "boundary" else { continue }
            var value = pair[1]
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            return (1...70).contains(value.utf8.count) ? value : nil
        }
        return nil
    }

    /// The parts between `--boundary` delimiter lines, up to the closing `--boundary--`.
    ///
    /// - Parameter what: names the message in errors, for example `"$batch body"`.
    /// - Throws: ``ODataError`` (400) when the closing delimiter is missing or a header line has no colon.
    public static func parts(of body: ArraySlice<UInt8>, boundary: String, what: String) throws(ODataError) -> [MultipartMixed.Part] {
        let delimiter = Array("--\(boundary)".utf8)
        var starts: [(index: Int, closing: Bool, contentStart: Int)] = []
        var index = body.startIndex
        while index + delimiter.count <= body.endIndex {
            if body[index] == delimiter[0], index == body.startIndex || body[index - 1] == UInt8(ascii: "\n"),
               body[index..<(index + delimiter.count)].elementsEqual(delimiter) {
                var after = index + delimiter.count
                let closing = after + 1 < body.endIndex && body[after] == UInt8(ascii: "-") && body[after + 1] == UInt8(ascii: "-")
                // The rest of the delimiter line (transport padding) is skipped.
                while after < body.endIndex, body[after] != UInt8(ascii: "\n") { after += 1 }
                starts.append((index, closing, min(after + 1, body.endIndex)))
                if closing { break }
                index = after
                continue
            }
            index += 1
        }
        guard let last = starts.last, last.closing else {
            throw .badRequest("The \(what) does not end with the closing delimiter --\(boundary)--.")
        }
        var parts: [MultipartMixed.Part] = []
        for (current, next) in zip(starts, starts.dropFirst()) {
            // The line break before a delimiter belongs to the delimiter, not to the part.
            var end = next.index
            if end > current.contentStart, body[end - 1] == UInt8(ascii: "\n") { end -= 1 }
            if end > current.contentStart, body[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            let (headers, content) = try headerBlock(body[current.contentStart..<max(end, current.contentStart)], what: what)
            parts.append(MultipartMixed.Part(headers: headers, body: content))
        }
        return parts
    }

    /// Header lines up to the first empty line, and the bytes after it: the headers of a part, or
    /// of the HTTP message inside an `application/http` part.
    ///
    /// - Throws: ``ODataError`` (400) for a header line without a colon.
    public static func headerBlock(_ bytes: ArraySlice<UInt8>, what: String) throws(ODataError) -> (headers: [(name: String, value: String)], rest: ArraySlice<UInt8>) {
        var headers: [(name: String, value: String)] = []
        var lineStart = bytes.startIndex
        while lineStart < bytes.endIndex {
            let lineEnd = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
            var line = bytes[lineStart..<lineEnd]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            let next = min(lineEnd + 1, bytes.endIndex)
            if line.isEmpty { return (headers, bytes[next...]) }
            let text = String(decoding: line, as: UTF8.self)
            guard let colon = text.firstIndex(of: ":") else {
                throw .badRequest("A header line of the \(what) has no colon: '\(text.prefix(100))'.")
            }
            headers.append((trimmed(text[..<colon]), trimmed(text[text.index(after: colon)...])))
            lineStart = next
        }
        return (headers, bytes[bytes.endIndex...])
    }

    /// The first line of `bytes` without its line break (the request or status line of an HTTP
    /// message), and what follows it.
    public static func firstLine(_ bytes: ArraySlice<UInt8>) -> (line: String, rest: ArraySlice<UInt8>) {
        let end = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
        var line = bytes[bytes.startIndex..<end]
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        return (String(decoding: line, as: UTF8.self), bytes[min(end + 1, bytes.endIndex)...])
    }

    private static func trimmed(_ text: some StringProtocol) -> String {
        var s = Substring(text)
        while let first = s.first, first.isWhitespace { s = s.dropFirst() }
        while let last = s.last, last.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}
