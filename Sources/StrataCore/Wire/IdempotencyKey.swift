/// The `Idempotency-Key` of a change set sent to `$changes` (the IETF HTTPAPI draft
/// "The Idempotency-Key HTTP Header Field"): the same key with the same body is applied once,
/// however often it is sent; a retry is answered with the results of what was applied.
///
/// A key is what the client chose: 1–255 visible ASCII characters, for example a UUID. The
/// draft writes it as a structured-field string (`"…"`); the quotes are optional here.
public struct IdempotencyKey: Sendable, Hashable, CustomStringConvertible {
    /// The request header that carries the key.
    public static let headerName = "Idempotency-Key"
    /// The response header that says the results were (at least partly) stored earlier under the key.
    public static let replayedHeaderName = "Idempotent-Replayed"
    /// The longest key, in bytes.
    public static let maximumLength = 255

    /// The key, without quotes.
    public let value: String

    /// A key of a client's choosing; nil when it is empty, longer than ``maximumLength`` or has a
    /// character outside visible ASCII.
    public init?(_ value: String) {
        guard !value.isEmpty, value.utf8.count <= Self.maximumLength,
              value.utf8.allSatisfy({ (0x21 ... 0x7E).contains($0) && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        else { return nil }
        self.value = value
    }

    /// A key read from the header's text, with or without the structured-field quotes.
    public init?(header text: String) {
        var text = Substring(text).trimmingSpaces()
        if text.count >= 2, text.first == "\"", text.last == "\"" { text = text.dropFirst().dropLast() }
        self.init(String(text))
    }

    /// A new random key (a UUID's text).
    public static func random() -> IdempotencyKey {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0 ..< 16).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
        let hex = bytes.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
        return IdempotencyKey(hex)!
    }

    /// The header's value: the key in quotes.
    public var headerValue: String { "\"\(value)\"" }

    /// The key.
    public var description: String { value }
}
