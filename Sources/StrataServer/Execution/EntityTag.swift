import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import StrataCore

/// An entity's ETag: a hash of the row's property values, so that any existing table supports
/// optimistic concurrency without a version column.
///
/// The tag is strong (`"…"`): it changes whenever a stored value changes, whatever the response
/// shape. It is the first 16 bytes of SHA-256 over a canonical, length-prefixed encoding of every
/// property (name, type and value), base64url without padding. The encoding is independent of how
/// a value was written to the database, so the tag read back by `RETURNING` equals the tag a later
/// GET computes.
struct EntityTag: Sendable, Hashable {
    /// The tag without quotes.
    let opaque: String

    /// The value of an `ETag` header or `__metadata.etag`: `"…"`.
    var headerValue: String { "\"" + opaque + "\"" }

    /// The tag of an entity whose values follow `type.properties` order.
    init(type: EntityType, values: [ODataValue]) {
        self.init(properties: type.properties, values: values)
    }

    init(properties: [EntityProperty], values: [ODataValue]) {
        var hasher = SHA256()
        // A version byte lets the encoding change later without old tags matching new ones.
        hasher.update(data: [1])
        for (property, value) in zip(properties, values) {
            Self.append(Array(property.name.utf8), to: &hasher)
            Self.append(Self.canonicalBytes(value), to: &hasher)
        }
        let digest = Array(hasher.finalize().prefix(16))
        opaque = Data(digest).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    init(opaque: String) {
        self.opaque = opaque
    }

    private static func append(_ bytes: [UInt8], to hasher: inout SHA256) {
        var length = UInt32(bytes.count).bigEndian
        withUnsafeBytes(of: &length) { hasher.update(bufferPointer: $0) }
        hasher.update(data: bytes)
    }

    /// One byte naming the kind of value, then its canonical text. Integers of every width share
    /// one form, so a column read as Int32 on one path and Int64 on another still agrees.
    private static func canonicalBytes(_ value: ODataValue) -> [UInt8] {
        let (kind, text): (UInt8, String)
        switch value {
        case .null: return [0]
        case .boolean(let b): (kind, text) = (1, b ? "1" : "0")
        case .byte, .sbyte, .int16, .int32, .int64: (kind, text) = (2, String(value.integerValue ?? 0))
        case .decimal(let d): (kind, text) = (3, d.description)
        case .double(let v): (kind, text) = (4, String(v.bitPattern, radix: 16))
        case .single(let v): (kind, text) = (4, String(Double(v).bitPattern, radix: 16))
        case .string(let s): (kind, text) = (5, s)
        case .dateTime(let d): (kind, text) = (6, String(d.microsecondsSince1970))
        case .dateTimeOffset(let d): (kind, text) = (7, "\(d.utc.microsecondsSince1970)\(d.offsetMinutes >= 0 ? "+" : "")\(d.offsetMinutes)")
        case .time(let t): (kind, text) = (8, String(t.microseconds))
        case .guid(let g): (kind, text) = (9, g.uuidString.lowercased())
        case .binary(let data): return [10] + Array(data)
        }
        return [kind] + Array(text.utf8)
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
enum EntityTagCondition: Sendable {
    /// `*`: any current entity.
    case any
    case tags([EntityTag])

    /// Nil when the header is absent; 400 when it is not a list of quoted tags or `*`.
    static func parse(_ header: String?, name: String) throws(ODataError) -> EntityTagCondition? {
        guard let header else { return nil }
        let trimmed = header.trimmingWhitespace()
        if trimmed == "*" { return .any }
        guard let tags = EntityTag.parseList(trimmed) else {
            throw .badRequest("The \(name) header must be * or a list of quoted entity tags such as \"abc\", as given in the ETag header or __metadata.etag.")
        }
        return .tags(tags)
    }

    func matches(_ tag: EntityTag) -> Bool {
        switch self {
        case .any: return true
        case .tags(let tags): return tags.contains { $0.opaque == tag.opaque }
        }
    }
}

extension ODataError {
    static func preconditionFailed(_ message: String) -> ODataError {
        ODataError(status: 412, code: "PreconditionFailed", message: message)
    }

    static func preconditionRequired(_ message: String) -> ODataError {
        ODataError(status: 428, code: "PreconditionRequired", message: message)
    }

    static func forbidden(_ message: String) -> ODataError {
        ODataError(status: 403, code: "Forbidden", message: message)
    }

    static func conflict(_ message: String) -> ODataError {
        ODataError(status: 409, code: "Conflict", message: message)
    }

    static func payloadTooLarge(_ message: String) -> ODataError {
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

// MARK: Conditional GET

extension EntityTag {
    /// The tag of a row read as `columns`; nil when the row lacks some property of the type.
    static func of(type: EntityType, columns: [EntityProperty], row: [ODataValue]) -> EntityTag? {
        positions(of: type, in: columns).map { positions in EntityTag(type: type, values: positions.map { row[$0] }) }
    }

    /// `If-None-Match` on a GET: true when the client's copy is current (answer 304).
    static func isNotModified(_ tag: EntityTag, headers: HTTPFields) throws(ODataError) -> Bool {
        try EntityTagCondition.parse(headers[.ifNoneMatch], name: "If-None-Match")?.matches(tag) ?? false
    }

    static func notModifiedResponse(_ tag: EntityTag) -> Response {
        Response(status: .notModified, headers: [.eTag: tag.headerValue], body: ResponseBody())
    }
}
