import Foundation
import StrataCore

/// Writes entities in OData V4 JSON: control information as `@odata.…` members as the client's
/// ``JSONFormat`` asks (the ETag in minimal metadata; also the entity's id, edit link, type and
/// navigation links in full), the properties in V4's value formats, and expanded navigation
/// properties inline — an object (or null) for a single entity, an array for a collection.
struct EntitySerializerV4: Sendable {
    /// The service root with a trailing slash: `http://127.0.0.1:8080/cardealer/`.
    let serviceRoot: String
    let format: JSONFormat

    static let contextKey = Array(#""@odata.context":"#.utf8)
    static let etagKey = Array(#""@odata.etag":"#.utf8)
    static let idKey = Array(#""@odata.id":"#.utf8)
    static let editLinkKey = Array(#""@odata.editLink":"#.utf8)
    static let typeKey = Array(#""@odata.type":"#.utf8)

    /// `context`: the `@odata.context` of a top-level entity (nil inside collections and
    /// expansions). `tag`: the entity's ETag when the caller computed it already (for the header).
    func write(_ row: EntityRow, shape: EntityShape, tag: EntityTag? = nil, context: String? = nil, into writer: inout JSONWriter) {
        writer.beginObject()
        if let context, format.metadata != .none {
            writer.key(prepared: Self.contextKey)
            writer.string(context)
        }
        var uri: [UInt8] = []
        if format.metadata == .full {
            uri.reserveCapacity(serviceRoot.utf8.count + 32)
            shape.appendURI(row.values, root: serviceRoot, into: &uri)
            writer.key(prepared: Self.typeKey)
            writer.string("#" + shape.typeName)
            writer.key(prepared: Self.idKey)
            writer.string(escaped: uri)
            writer.key(prepared: Self.editLinkKey)
            writer.string(shape.relativeURI(row.values))
        }
        if format.metadata != .none, shape.etagPositions != nil, let tag = tag ?? shape.entityTag(row.values) {
            writer.key(prepared: Self.etagKey)
            writer.string(tag.headerValue)
        }
        for index in shape.writtenProperties {
            writer.key(prepared: shape.memberNames[index])
            writeValue(row.values[index], property: shape.properties[index], into: &writer)
        }
        for (index, (navigation, expansion)) in shape.navigations.enumerated() {
            guard let expansion else {
                if format.metadata == .full {
                    writer.key(navigation.name + "@odata.navigationLink")
                    writer.string(escaped: uri, suffix: shape.navigationPathSuffixes[index])
                }
                continue
            }
            if let count = row.expandedCounts[navigation.name] {
                writer.key(navigation.name + "@odata.count")
                writer.number(count)
            }
            writer.key(prepared: shape.navigationMemberNames[index])
            switch row.expanded[navigation.name] {
            case .single(let related?):
                write(related, shape: expansion, into: &writer)
            case .single(nil):
                writer.null()
            case .collection(let related):
                writeArray(related, shape: expansion, into: &writer)
            case nil:
                // Expanded but not loaded cannot happen for rows the executor produced; write an empty value
                // of the right kind rather than a malformed document.
                if navigation.multiplicity == .many { writeArray([], shape: expansion, into: &writer) } else { writer.null() }
            }
        }
        writer.endObject()
    }

    private func writeArray(_ rows: [EntityRow], shape: EntityShape, into writer: inout JSONWriter) {
        writer.beginArray()
        for row in rows { write(row, shape: shape, into: &writer) }
        writer.endArray()
    }

    /// A property value; decimals with a declared scale keep their trailing zeros (`35.00`).
    func writeValue(_ value: ODataValue, property: EntityProperty, into writer: inout JSONWriter) {
        if case .decimal(let d) = value, let scale = property.scale, scale > 0 {
            ODataJSON.writeDecimalV4(DecimalFormatting.fixed(d, scale: scale), ieee754Compatible: format.ieee754Compatible, to: &writer)
            return
        }
        ODataJSON.writeV4(value, ieee754Compatible: format.ieee754Compatible, to: &writer)
    }
}
