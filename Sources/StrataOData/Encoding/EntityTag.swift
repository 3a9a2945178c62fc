import Crypto
import Foundation
import HTTPTypes
import StrataCore

/// An entity's ETag: a hash of the row's property values, so that any existing table supports
/// optimistic concurrency without a version column.
///
/// The tag is strong (`"…"`): it changes whenever a stored value changes, whatever the response
/// shape. It is the first 16 bytes of SHA-256 over a canonical, length-prefixed encoding of every
/// property (name, type and value), base64url without padding. The encoding is independent of how
/// a value was written to the database, so the tag read back by `RETURNING` equals the tag a later
/// GET computes.
package struct EntityTag: Sendable, Hashable {
    /// The tag without quotes.
    let opaque: String

    /// The value of an `ETag` header or `__metadata.etag`: `"…"`.
    var headerValue: String { "\"" + opaque + "\"" }

    /// The tag of an entity whose values follow `type.properties` order.
    init(type: EntityType, values: [ODataValue]) {
        self.init(properties: type.properties, values: values)
    }

    init(properties: [EntityProperty], values: [ODataValue]) {
        self.init(properties: properties, row: values, positions: values.indices)
    }

    /// The tag of a row whose values for `properties` sit at `positions` (the columns a query selected).
    init(properties: [EntityProperty], row: [ODataValue], positions: some Collection<Int>) {
        // The whole canonical encoding is laid out in one buffer and hashed once: a SHA-256 update and
        // an array per value cost a streamed collection a quarter of its CPU (benchmarks, issue 10).
        var message: [UInt8] = []
        message.reserveCapacity(256)
        // A version byte lets the encoding change later without old tags matching new ones.
        message.append(1)
        for (property, position) in zip(properties, positions) {
            Self.appendLength(property.name.utf8.count, to: &message)
            message.append(contentsOf: property.name.utf8)
            let start = message.count
            Self.appendLength(0, to: &message)
            Self.appendCanonical(row[position], to: &message)
            Self.patchLength(at: start, in: &message)
        }
        // The buffer-pointer update: `hash(data:)` walks the array as generic `DataProtocol` regions.
        var hasher = SHA256()
        message.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        opaque = hasher.finalize().withUnsafeBytes { Base64URL.encode($0.prefix(16)) }
    }

    package init(opaque: String) {
        self.opaque = opaque
    }

    /// A big-endian 32-bit length.
    private static func appendLength(_ length: Int, to message: inout [UInt8]) {
        let length = UInt32(truncatingIfNeeded: length)
        message.append(UInt8(length >> 24))
        message.append(UInt8(length >> 16 & 0xFF))
        message.append(UInt8(length >> 8 & 0xFF))
        message.append(UInt8(length & 0xFF))
    }

    /// Writes the length of what follows the 4 bytes at `start` into them.
    private static func patchLength(at start: Int, in message: inout [UInt8]) {
        let length = UInt32(message.count - start - 4)
        message[start] = UInt8(length >> 24)
        message[start + 1] = UInt8(length >> 16 & 0xFF)
        message[start + 2] = UInt8(length >> 8 & 0xFF)
        message[start + 3] = UInt8(length & 0xFF)
    }

    /// One byte naming the kind of value, then its canonical text. Integers of every width share
    /// one form, so a column read as Int32 on one path and Int64 on another still agrees.
    private static func appendCanonical(_ value: ODataValue, to message: inout [UInt8]) {
        switch value {
        case .null:
            message.append(0)
        case .boolean(let b):
            message.append(1)
            message.append(b ? UInt8(ascii: "1") : UInt8(ascii: "0"))
        case .byte, .sbyte, .int16, .int32, .int64:
            message.append(2)
            appendDecimal(value.integerValue ?? 0, to: &message)
        case .decimal(let d):
            message.append(3)
            message.append(contentsOf: d.description.utf8)
        case .double(let v):
            message.append(4)
            message.append(contentsOf: String(v.bitPattern, radix: 16).utf8)
        case .single(let v):
            message.append(4)
            message.append(contentsOf: String(Double(v).bitPattern, radix: 16).utf8)
        case .string(let s):
            message.append(5)
            message.append(contentsOf: s.utf8)
        case .dateTime(let d):
            message.append(6)
            appendDecimal(d.microsecondsSince1970, to: &message)
        case .dateTimeOffset(let d):
            message.append(7)
            message.append(contentsOf: "\(d.utc.microsecondsSince1970)\(d.offsetMinutes >= 0 ? "+" : "")\(d.offsetMinutes)".utf8)
        case .time(let t):
            message.append(8)
            appendDecimal(t.microseconds, to: &message)
        case .guid(let g):
            message.append(9)
            message.append(contentsOf: g.uuidString.lowercased().utf8)
        case .binary(let data):
            message.append(10)
            message.append(contentsOf: data)
        }
    }

    /// The decimal digits of `value`, as `String(value)` writes them.
    private static func appendDecimal(_ value: Int64, to message: inout [UInt8]) {
        if value < 0 { message.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                      UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[19 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            message.append(contentsOf: buffer[(20 - count)...])
        }
    }

    /// Reads one entity tag of a header list: `"x"` or `W/"x"` (weak tags from older clients are
    /// compared by their opaque part, as WCF Data Services did).
    static func parseList(_ header: String) -> [EntityTag]? {
        var tags: [EntityTag] = []
        for piece in header.split(separator: ",") {
            var text = Substring(String(piece).trimmingWhitespace())
            if text.hasPrefix("W/") { text = text.dropFirst(2) }
            guard text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") else { return nil }
            tags.append(EntityTag(opaque: String(text.dropFirst().dropLast())))
        }
        return tags.isEmpty ? nil : tags
    }
}

/// What an `If-Match` or `If-None-Match` header asks for.
package enum EntityTagCondition: Sendable {
    /// `*`: any current entity.
    case any
    case tags([EntityTag])

    /// Nil when the header is absent; 400 when it is not a list of quoted tags or `*`.
    package static func parse(_ header: String?, name: String) throws(ODataError) -> EntityTagCondition? {
        guard let header else { return nil }
        let trimmed = header.trimmingWhitespace()
        if trimmed == "*" { return .any }
        guard let tags = EntityTag.parseList(trimmed) else {
            throw .badRequest("The \(name) header must be * or a list of quoted entity tags such as \"abc\", as given in the ETag header or __metadata.etag.")
        }
        return .tags(tags)
    }

    package func matches(_ tag: EntityTag) -> Bool {
        switch self {
        case .any: return true
        case .tags(let tags): return tags.contains { $0.opaque == tag.opaque }
        }
    }
}

extension ODataError {
    package static func preconditionFailed(_ message: String) -> ODataError {
        ODataError(status: 412, code: "PreconditionFailed", message: message)
    }

    static func preconditionRequired(_ message: String) -> ODataError {
        ODataError(status: 428, code: "PreconditionRequired", message: message)
    }

    package static func forbidden(_ message: String) -> ODataError {
        ODataError(status: 403, code: "Forbidden", message: message)
    }

    package static func conflict(_ message: String) -> ODataError {
        ODataError(status: 409, code: "Conflict", message: message)
    }

    package static func payloadTooLarge(_ message: String) -> ODataError {
        ODataError(status: 413, code: "PayloadTooLarge", message: message)
    }
}

extension EntityTag {
    /// Where each property of `type` sits among `properties`; nil when one is missing (a narrowed read).
    static func positions(of type: EntityType, in properties: [EntityProperty]) -> [Int]? {
        if properties.count == type.properties.count, zip(properties, type.properties).allSatisfy({ $0.name == $1.name }) {
            return Array(properties.indices)
        }
        var positions: [Int] = []
        for property in type.properties {
            guard let index = properties.firstIndex(where: { $0.name == property.name }) else { return nil }
            positions.append(index)
        }
        return positions
    }
}

