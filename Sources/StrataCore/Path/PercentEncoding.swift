/// Percent-encoding for OData URLs, done byte-wise so that it behaves the same on every platform.
public enum PercentEncoding {
    /// Encodes a form field or an OAuth parameter: everything but unreserved characters (RFC 3986)
    /// escaped, so that the text means the same in a query string and in an
    /// `x-www-form-urlencoded` body (`+`, `&`, `=` and `/` included).
    public static func encodeFormValue(_ text: String) -> String {
        encode(text, keep: isUnreserved)
    }

    /// `name=value&…`, each part encoded by ``encodeFormValue(_:)``.
    public static func encodeForm(_ fields: [(String, String)]) -> String {
        fields.map { encodeFormValue($0.0) + "=" + encodeFormValue($0.1) }.joined(separator: "&")
    }

    /// Decodes `%XX` escapes; nil when an escape is malformed or the result is not UTF-8.
    /// With `plusAsSpace` (query strings), `+` means a space as HTML forms write it.
    public static func decode(_ text: some StringProtocol, plusAsSpace: Bool = false) -> String? {
        decode(Substring(text), plusAsSpace: plusAsSpace)
    }

    /// ``decode(_:plusAsSpace:)`` for a substring, callable from other modules without a generic
    /// (unspecialized) call per path segment and query option.
    public static func decode(_ text: Substring, plusAsSpace: Bool = false) -> String? {
        // Most segments and options have nothing to decode: look before copying.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusAsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(text)
        }
        let utf8 = Array(text.utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var i = 0
        while i < utf8.count {
            let c = utf8[i]
            if c == UInt8(ascii: "%") {
                guard i + 2 < utf8.count, let hi = ODataLiteral.hexValue(utf8[i + 1]), let lo = ODataLiteral.hexValue(utf8[i + 2]) else {
                    return nil
                }
                bytes.append(hi << 4 | lo)
                i += 3
            } else {
                bytes.append(plusAsSpace && c == UInt8(ascii: "+") ? UInt8(ascii: " ") : c)
                i += 1
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Encodes a literal for use inside a path segment's parentheses: quotes, commas and `=` stay,
    /// anything that would end or split the segment is escaped.
    public static func encodePathLiteral(_ text: String) -> String {
        encode(text) { c in isUnreserved(c) || "'!$&*+,;=:@".utf8.contains(c) }
    }

    /// Encodes a segment name (names are identifiers, so this rarely changes anything).
    public static func encodePathSegmentName(_ text: String) -> String {
        encode(text) { c in isUnreserved(c) || c == UInt8(ascii: "$") }
    }

    /// Encodes a query option value: everything but unreserved characters and a few safe
    /// punctuation marks OData uses (`'`, `,`, `/`, `(`, `)`, `:`, `$`), spaces as `%20`.
    public static func encodeQueryValue(_ text: String) -> String {
        encode(text) { c in isUnreserved(c) || "',/():$*@!".utf8.contains(c) }
    }

    static func isUnreserved(_ c: UInt8) -> Bool {
        (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57)
            || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") || c == UInt8(ascii: "_") || c == UInt8(ascii: "~")
    }

    static func encode(_ text: String, keep: (UInt8) -> Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for c in text.utf8 {
            if keep(c) {
                out.append(c)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(c >> 4)])
                out.append(hex[Int(c & 0xF)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
