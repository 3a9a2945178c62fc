import StrataCore

/// A `Range: bytes=…` request (RFC 9110 §14.2), reduced to one range of a blob of known size.
enum ByteRange {
    /// The bytes asked for; nil to answer with the whole blob: no header, a unit other than
    /// `bytes`, or several ranges (multipart/byteranges answers are not made; sending the whole
    /// representation instead is what the RFC allows).
    ///
    /// - Throws: 416 when the range cannot be satisfied (it starts at or past the end, or asks for
    ///   the last 0 bytes) or cannot be read (`bytes=5-3`, `bytes=x-`).
    static func parse(_ header: String?, size: Int64) throws(ODataError) -> Range<Int64>? {
        guard let header else { return nil }
        let trimmed = header.trimmingWhitespace()
        guard let equals = trimmed.firstIndex(of: "="), String(trimmed[..<equals]).trimmingWhitespace().lowercased() == "bytes" else {
            return nil
        }
        let specs = trimmed[trimmed.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false)
        guard specs.count == 1 else { return nil }
        let spec = String(specs[0]).trimmingWhitespace()
        guard let dash = spec.firstIndex(of: "-") else { throw unreadable(header) }
        let first = spec[..<dash], last = spec[spec.index(after: dash)...]
        if first.isEmpty {
            guard let suffix = number(last) else { throw unreadable(header) }
            guard suffix > 0, size > 0 else { throw unsatisfiable(header, size: size) }
            return max(0, size - suffix)..<size
        }
        guard let start = number(first) else { throw unreadable(header) }
        var end = size - 1
        if !last.isEmpty {
            guard let requested = number(last), requested >= start else { throw unreadable(header) }
            end = min(requested, size - 1)
        }
        guard start < size else { throw unsatisfiable(header, size: size) }
        return start..<(end + 1)
    }

    /// A position of any length of digits; one beyond what Int64 holds counts as `Int64.max`, which
    /// is past the end of any blob (RFC 9110 clamps a last position past the end to the end).
    private static func number(_ text: some StringProtocol) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int64(text) ?? Int64.max
    }

    static func unsatisfiable(_ header: String, size: Int64) -> ODataError {
        ODataError(status: 416, code: "RangeNotSatisfiable",
                   message: "The range '\(header.prefix(100))' lies outside the blob, which has \(size) bytes.")
    }

    static func unreadable(_ header: String) -> ODataError {
        ODataError(status: 416, code: "RangeNotSatisfiable",
                   message: "The Range header '\(header.prefix(100))' cannot be read; write bytes=first-last, bytes=first- or bytes=-suffix.")
    }
}
