import Foundation
import StrataCore

/// Writes entities in OData V2 verbose JSON, as WCF Data Services did: `__metadata` with the
/// entity's absolute URI and type, the properties, and each navigation property either inline
/// (expanded) or as `{"__deferred":{"uri":…}}`.
struct EntitySerializer: Sendable {
    /// The service root with a trailing slash: `http://127.0.0.1:8080/cardealer/`.
    let serviceRoot: String
    let version: ODataVersion

    // Member names written for every entity, escaped once (`"name":`).
    static let metadataKey = Array(#""__metadata":"#.utf8)
    static let uriKey = Array(#""uri":"#.utf8)
    static let typeKey = Array(#""type":"#.utf8)
    static let etagKey = Array(#""etag":"#.utf8)
    static let deferredKey = Array(#""__deferred":"#.utf8)

    /// `tag`: the entity's ETag when the caller has computed it already (for the ETag header), so
    /// that the row is not hashed twice.
    func write(_ row: EntityRow, shape: EntityShape, tag: EntityTag? = nil, into writer: inout JSONWriter) {
        var uri: [UInt8] = []
        uri.reserveCapacity(serviceRoot.utf8.count + 32)
        shape.appendURI(row.values, root: serviceRoot, into: &uri)
        writer.beginObject()
        writer.key(prepared: Self.metadataKey)
        writer.beginObject()
        writer.key(prepared: Self.uriKey)
        writer.string(escaped: uri)
        writer.key(prepared: Self.typeKey)
        writer.string(shape.typeName)
        if shape.etagPositions != nil, let tag = tag ?? shape.entityTag(row.values) {
            writer.key(prepared: Self.etagKey)
            writer.string(tag.headerValue)
        }
        writer.endObject()
        for index in shape.writtenProperties {
            writer.key(prepared: shape.memberNames[index])
            writeValue(row.values[index], property: shape.properties[index], into: &writer)
        }
        for (index, (navigation, expansion)) in shape.navigations.enumerated() {
            writer.key(prepared: shape.navigationMemberNames[index])
            guard let expansion else {
                writer.beginObject()
                writer.key(prepared: Self.deferredKey)
                writer.beginObject()
                writer.key(prepared: Self.uriKey)
                writer.string(escaped: uri, suffix: shape.navigationPathSuffixes[index])
                writer.endObject()
                writer.endObject()
                continue
            }
            switch row.expanded[navigation.name] {
            case .single(let related?):
                write(related, shape: expansion, into: &writer)
            case .single(nil):
                writer.null()
            case .collection(let related):
                writeCollection(related, shape: expansion, into: &writer)
            case nil:
                // Expanded but not loaded cannot happen for rows the executor produced; write an empty value
                // of the right kind rather than a malformed document.
                if navigation.multiplicity == .many { writeCollection([], shape: expansion, into: &writer) } else { writer.null() }
            }
        }
        writer.endObject()
    }

    /// An inline collection: a bare array in V1, `{"results":[…]}` in V2.
    private func writeCollection(_ rows: [EntityRow], shape: EntityShape, into writer: inout JSONWriter) {
        if version >= .v2 {
            writer.beginObject()
            writer.key("results")
        }
        writer.beginArray()
        for row in rows { write(row, shape: shape, into: &writer) }
        writer.endArray()
        if version >= .v2 { writer.endObject() }
    }

    /// A property value; decimals with a declared scale keep their trailing zeros (`35.00`), as SQL Server sent them.
    func writeValue(_ value: ODataValue, property: EntityProperty, into writer: inout JSONWriter) {
        if case .decimal(let d) = value, let scale = property.scale, scale > 0 {
            writer.rawString(DecimalFormatting.fixed(d, scale: scale))
            return
        }
        ODataJSON.write(value, to: &writer)
    }
}

enum DecimalFormatting {
    /// The decimal written with exactly `scale` fraction digits when it has no more than that.
    static func fixed(_ value: Decimal, scale: Int) -> String {
        let text = value.description
        let parts = text.split(separator: ".", maxSplits: 1)
        let fraction = parts.count > 1 ? String(parts[1]) : ""
        guard fraction.count < scale, !text.contains("e"), !text.contains("E") else { return text }
        return String(parts[0]) + "." + fraction + String(repeating: "0", count: scale - fraction.count)
    }
}
