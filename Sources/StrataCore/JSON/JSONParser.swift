/// A strict RFC 8259 parser over UTF-8 bytes with a nesting limit, so hostile input cannot exhaust the stack.
struct JSONParser {
    let bytes: [UInt8]
    let maximumDepth: Int
    /// Where the document starts and ends in `bytes`: a reader of a stream parses its values in
    /// place, in the buffer they arrived in, instead of copying each out first.
    let start: Int
    let end: Int
    var position: Int
    var depth = 0
    /// Members of the objects being parsed, innermost last. An object's members are gathered here
    /// and copied out once, at its exact size, instead of growing an array of their own (1, 2, 4, 8…).
    private var members: [(key: String, value: JSONValue)] = []

    init(bytes: [UInt8], range: Range<Int>? = nil, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
        start = range?.lowerBound ?? 0
        end = range?.upperBound ?? bytes.count
        position = start
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        // A UTF-8 byte order mark is tolerated at the start.
        if end - start >= 3, bytes[start] == 0xEF, bytes[start + 1] == 0xBB, bytes[start + 2] == 0xBF { position = start + 3 }
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard position == end else { throw fail("unexpected text after the JSON value") }
        return value
    }

    private func fail(_ message: String) -> JSONParseError {
        JSONParseError(message: message, offset: position - start)
    }

    private mutating func skipWhitespace() {
        while position < end {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard position < end else { throw fail("unexpected end of JSON") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw fail("unexpected character '\(Character(Unicode.Scalar(bytes[position])))'")
        }
    }

    private mutating func expectWord(_ word: StaticString) throws(JSONParseError) {
        let count = word.utf8CodeUnitCount
        guard position + count <= end else { throw fail("unexpected end of JSON") }
        let matches = word.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[position + $0] == expected[$0] }
        }
        guard matches else { throw fail("invalid literal") }
        position += count
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        guard depth <= maximumDepth else { throw fail("JSON nested deeper than \(maximumDepth) levels") }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        position += 1
        skipWhitespace()
        if position < end, bytes[position] == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return .object(JSONObject())
        }
        let first = members.count
        while true {
            skipWhitespace()
            guard position < end, bytes[position] == UInt8(ascii: "\"") else {
                throw fail("expected a quoted member name")
            }
            let key = try parseString()
            skipWhitespace()
            guard position < end, bytes[position] == UInt8(ascii: ":") else { throw fail("expected ':' after member name") }
            position += 1
            skipWhitespace()
            let value = try parseValue()
            members.append((key, value))
            skipWhitespace()
            guard position < end else { throw fail("unexpected end of JSON inside an object") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "}") { position += 1; break }
            throw fail("expected ',' or '}' in an object")
        }
        depth -= 1
        // A name given twice has no one meaning (I-JSON, RFC 7493, forbids it): refused, rather
        // than keeping either value silently.
        if let repeated = JSONObject.repeatedName(in: members[first...]) {
            throw fail("the member \"\(repeated.prefix(60))\" appears twice in one object")
        }
        let entries = Array(members[first...])
        members.removeSubrange(first...)
        return .object(JSONObject(distinctEntries: entries))
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        position += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if position < end, bytes[position] == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            guard position < end else { throw fail("unexpected end of JSON inside an array") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "]") { position += 1; break }
            throw fail("expected ',' or ']' in an array")
        }
        depth -= 1
        return .array(items)
    }

    private mutating func parseNumber() throws(JSONParseError) -> String {
        let start = position
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < end, isDigit(bytes[position]) else { throw fail("invalid number") }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            while position < end, isDigit(bytes[position]) { position += 1 }
        }
        if position < end, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard position < end, isDigit(bytes[position]) else { throw fail("invalid number: digits must follow '.'") }
            while position < end, isDigit(bytes[position]) { position += 1 }
        }
        if position < end, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < end, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < end, isDigit(bytes[position]) else { throw fail("invalid number: digits must follow the exponent") }
            while position < end, isDigit(bytes[position]) { position += 1 }
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }

    private mutating func parseString() throws(JSONParseError) -> String {
        position += 1 // opening quote
        let start = position
        // Fast path: no escapes.
        var bits: UInt8 = 0
        while position < end {
            let c = bytes[position]
            if c == UInt8(ascii: "\"") {
                let end = position
                position += 1
                // ASCII text needs no validation, and String(decoding:) from a buffer is the standard
                // library's fast path; String(validating:) runs a generic validator per string.
                if bits < 0x80 {
                    return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self) }
                }
                guard let s = String(validating: bytes[start..<end], as: UTF8.self) else { throw fail("string is not valid UTF-8") }
                return s
            }
            if c == UInt8(ascii: "\\") { break }
            if c < 0x20 { throw fail("control character inside a string must be escaped") }
            bits |= c
            position += 1
        }
        // With escapes (every V2 date is "\/Date(…)\/"): unescaped into a buffer sized for the common
        // short string, and again skipping the validator when every byte is ASCII.
        var buffer: [UInt8] = []
        buffer.reserveCapacity(position - start + 32)
        buffer.append(contentsOf: bytes[start..<position])
        while position < end {
            let c = bytes[position]
            if c == UInt8(ascii: "\"") {
                position += 1
                if bits < 0x80 { return String(decoding: buffer, as: UTF8.self) }
                guard let s = String(validating: buffer, as: UTF8.self) else { throw fail("string is not valid UTF-8") }
                return s
            }
            if c < 0x20 { throw fail("control character inside a string must be escaped") }
            if c != UInt8(ascii: "\\") {
                buffer.append(c)
                bits |= c
                position += 1
                continue
            }
            position += 1
            guard position < end else { break }
            let escape = bytes[position]
            position += 1
            switch escape {
            case UInt8(ascii: "\""): buffer.append(0x22)
            case UInt8(ascii: "\\"): buffer.append(0x5C)
            case UInt8(ascii: "/"): buffer.append(0x2F)
            case UInt8(ascii: "b"): buffer.append(0x08)
            case UInt8(ascii: "f"): buffer.append(0x0C)
            case UInt8(ascii: "n"): buffer.append(0x0A)
            case UInt8(ascii: "r"): buffer.append(0x0D)
            case UInt8(ascii: "t"): buffer.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try parseHex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard position + 6 <= end, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                        throw fail("unpaired surrogate in \\u escape")
                    }
                    position += 2
                    let low = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate in \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw fail("unpaired surrogate in \\u escape")
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape") }
                let encoded = Array(String(Character(unicode)).utf8)
                for byte in encoded { bits |= byte }
                buffer.append(contentsOf: encoded)
            default:
                throw fail("invalid escape sequence")
            }
        }
        throw fail("unterminated string")
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard position + 4 <= end else { throw fail("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = ODataLiteral.hexValue(bytes[position]) else { throw fail("invalid \\u escape") }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }
}
