/// A fast, allocation-light JSON writer that appends UTF-8 bytes.
///
/// Both the server (streaming responses chunk by chunk) and the client (request bodies) write JSON
/// through this type, so the escaping rules exist once. Commas are inserted automatically.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8]
    /// One flag per open container: whether it already holds an element (so the next needs a comma).
    private var needsComma: [Bool] = []
    private var afterKey = false

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Hands out the bytes written so far and starts an empty buffer, keeping the nesting state;
    /// used to flush a streamed response in chunks.
    public mutating func takeBytes() -> [UInt8] {
        let taken = bytes
        bytes.removeAll(keepingCapacity: true)
        return taken
    }

    public var count: Int { bytes.count }

    private mutating func separate() {
        if afterKey {
            afterKey = false
            return
        }
        if let last = needsComma.last {
            if last { bytes.append(UInt8(ascii: ",")) }
            needsComma[needsComma.count - 1] = true
        }
    }

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma.append(false)
    }

    public mutating func endObject() {
        needsComma.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma.append(false)
    }

    public mutating func endArray() {
        needsComma.removeLast()
        bytes.append(UInt8(ascii: "]"))
    }

    public mutating func key(_ name: String) {
        separate()
        appendQuoted(name)
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
    }

    /// Writes a member name prepared earlier as `"name":` (escaped once, reused for many rows).
    public mutating func key(prepared quotedNameAndColon: [UInt8]) {
        separate()
        bytes.append(contentsOf: quotedNameAndColon)
        afterKey = true
    }

    public mutating func string(_ value: String) {
        separate()
        appendQuoted(value)
    }

    /// Writes a string whose content is known to need no escaping except what the caller put in,
    /// such as `\/Date(…)\/`. The text is written between quotes exactly as given.
    public mutating func rawString(_ escapedContent: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: escapedContent.utf8)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Writes a string given as its JSON-escaped content (see ``escape(_:into:)``), followed by
    /// `suffix`, also escaped: for text built from parts, such as URIs, without joining strings.
    public mutating func string(escaped content: [UInt8], suffix: [UInt8] = []) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: content)
        bytes.append(contentsOf: suffix)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends `text` to `output` escaped as the content of a JSON string (without quotes).
    public static func escape(_ text: String, into output: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            var start = 0
            for i in 0..<utf8.count {
                let c = utf8[i]
                guard c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") else { continue }
                if start < i { output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<i])) }
                start = i + 1
                switch c {
                case UInt8(ascii: "\""): output.append(contentsOf: [92, 34])
                case UInt8(ascii: "\\"): output.append(contentsOf: [92, 92])
                case 0x0A: output.append(contentsOf: [92, UInt8(ascii: "n")])
                case 0x0D: output.append(contentsOf: [92, UInt8(ascii: "r")])
                case 0x09: output.append(contentsOf: [92, UInt8(ascii: "t")])
                case 0x08: output.append(contentsOf: [92, UInt8(ascii: "b")])
                case 0x0C: output.append(contentsOf: [92, UInt8(ascii: "f")])
                default:
                    output.append(contentsOf: [92, UInt8(ascii: "u"), 48, 48, hex[Int(c >> 4)], hex[Int(c & 0xF)]])
                }
            }
            if start < utf8.count { output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<utf8.count])) }
        }
    }

    /// Writes pre-formatted JSON (a number, `true`, a nested document) as it is.
    public mutating func raw(_ json: String) {
        separate()
        bytes.append(contentsOf: json.utf8)
    }

    public mutating func raw(bytes json: some Sequence<UInt8>) {
        separate()
        bytes.append(contentsOf: json)
    }

    public mutating func bool(_ value: Bool) { raw(value ? "true" : "false") }
    public mutating func null() { raw("null") }
    public mutating func number(_ value: Int64) { raw(String(value)) }
    public mutating func number(_ value: Int) { raw(String(value)) }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func appendQuoted(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        Self.escape(s, into: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }
}
