/// One segment of an OData resource path: a name with an optional key, such as `Person(1)` or `PersonCar`.
///
/// System segments keep their `$` name: `$metadata`, `$batch`, `$count`, `$value`, `$links`.
public struct PathSegment: Sendable, Hashable {
    public var name: String
    public var key: KeyPredicate?

    public init(_ name: String, key: KeyPredicate? = nil) {
        self.name = name
        self.key = key
    }

    public var isSystem: Bool { name.hasPrefix("$") }

    /// The segment as it appears in a URL path, percent-encoded.
    public var urlText: String { urlText(version: .v2) }

    /// The same with the key's literals as `version` writes them.
    public func urlText(version: ODataVersion) -> String {
        PercentEncoding.encodePathSegmentName(name) + (key?.urlText(version: version) ?? "")
    }

    /// Parses one raw (still percent-encoded) segment.
    ///
    /// Delimiters are found among UTF-8 bytes (they are ASCII, and ASCII bytes never occur inside a
    /// multi-byte character), which keeps the common `Person(1)` free of Unicode segmentation.
    public static func parse(rawSegment: Substring) throws(ODataError) -> PathSegment {
        guard rawSegment.utf8.contains(UInt8(ascii: "%")) else { return try parse(decoded: rawSegment) }
        guard let decoded = PercentEncoding.decode(rawSegment) else {
            throw .badRequest("The path segment '\(rawSegment)' has an invalid percent escape.")
        }
        return try parse(decoded: Substring(decoded))
    }

    private static func parse(decoded text: Substring) throws(ODataError) -> PathSegment {
        let bytes = text.utf8
        guard let open = bytes.firstIndex(of: UInt8(ascii: "(")) else {
            try validateName(text)
            return PathSegment(String(text))
        }
        guard bytes.last == UInt8(ascii: ")") else {
            throw .badRequest("The path segment '\(text)' has a key that does not end with ')'; write it as Set(key).")
        }
        let name = text[..<open]
        try validateName(name)
        let inner = text[bytes.index(after: open)..<bytes.index(before: bytes.endIndex)]
        return PathSegment(String(name), key: try KeyPredicate.parse(inner))
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    private static func validateName(_ name: Substring) throws(ODataError) {
        guard !name.isEmpty else { throw .badRequest("The URL has an empty path segment.") }
        // ASCII names, nearly all of them, are checked without Unicode property tables.
        let first = name.utf8.first!
        if first != UInt8(ascii: "$") || name.utf8.count > 1,
           first == UInt8(ascii: "$") || first == UInt8(ascii: "_") || Self.isASCIILetter(first),
           name.utf8.dropFirst().allSatisfy({ $0 == UInt8(ascii: "_") || Self.isASCIILetter($0) || (0x30...0x39).contains($0) }) {
            return
        }
        let valid = name.unicodeScalars.enumerated().allSatisfy { index, scalar in
            scalar == "_" || (scalar == "$" && index == 0) || scalar.properties.isAlphabetic
                || (index > 0 && scalar.properties.numericType != nil)
        }
        guard valid else {
            throw .badRequest("'\(name)' is not a valid name in an OData path; names are letters, digits and underscores.")
        }
    }
}

/// A resource path below a service root: `Person(1)/PersonCar`, `Person/$count`, `$metadata`.
public struct ResourcePath: Sendable, Hashable {
    public var segments: [PathSegment]

    public init(_ segments: [PathSegment]) {
        self.segments = segments
    }

    /// The path as it appears in a URL (percent-encoded, no leading slash).
    public var urlText: String { urlText(version: .v2) }

    /// The same with key literals as `version` writes them.
    public func urlText(version: ODataVersion) -> String { segments.map { $0.urlText(version: version) }.joined(separator: "/") }

    /// Parses the part of a URL path after the service name. Slashes inside quoted key strings do not split.
    public static func parse(_ rawPath: Substring) throws(ODataError) -> ResourcePath {
        var segments: [PathSegment] = []
        var inQuote = false
        var start = rawPath.startIndex
        func flush(_ end: Substring.Index) throws(ODataError) {
            let raw = rawPath[start..<end]
            // A trailing slash (`Person/`) is tolerated as WCF did.
            if raw.isEmpty && end == rawPath.endIndex && !segments.isEmpty { return }
            segments.append(try PathSegment.parse(rawSegment: raw))
        }
        // Quotes and slashes among UTF-8 bytes: ASCII bytes never occur inside a multi-byte
        // character, and a quote with a combining mark after it still counts.
        let bytes = rawPath.utf8
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "'") { inQuote.toggle() } else if byte == UInt8(ascii: "/") && !inQuote {
                try flush(index)
                start = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        if start < rawPath.endIndex || !segments.isEmpty { try flush(rawPath.endIndex) }
        return ResourcePath(segments)
    }
}
