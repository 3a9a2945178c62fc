/// A fast, allocation-light JSON writer that appends UTF-8 bytes.
///
/// Both the server (streaming responses chunk by chunk) and the client (request bodies) write JSON
/// through this type, so the escaping rules exist once. Commas are inserted automatically.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8]
    /// One bit per open container, whether it already holds an element (so the next needs a comma):
    /// container `n` (counted from 1, outermost first) is bit `(n - 1) % 64` of `commaBits`, and
    /// the words of enclosing groups of 64 wait in `spilledBits`. A `[Bool]` stack cost every
    /// response an allocation.
    private var commaBits: UInt64 = 0
    private var spilledBits: [UInt64] = []
    private var depth = 0
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
        guard depth > 0 else { return }
        let bit = UInt64(1) << ((depth - 1) % 64)
        if commaBits & bit != 0 { bytes.append(UInt8(ascii: ",")) }
        commaBits |= bit
    }

    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        if depth > 0, depth % 64 == 0 {
            spilledBits.append(commaBits)
            commaBits = 0
        }
        depth += 1
        commaBits &= ~(UInt64(1) << ((depth - 1) % 64))
    }

    private mutating func close(_ bracket: UInt8) {
        precondition(depth > 0, "JSONWriter: closing a container that was not opened")
        depth -= 1
        if depth > 0, depth % 64 == 0 { commaBits = spilledBits.removeLast() }
        bytes.append(bracket)
    }

    public mutating func beginObject() { open(UInt8(ascii: "{")) }

    public mutating func endObject() { close(UInt8(ascii: "}")) }

    public mutating func beginArray() { open(UInt8(ascii: "[")) }

    public mutating func endArray() { close(UInt8(ascii: "]")) }

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
