import StrataCore

/// What a read found, before it is written in any format: Serialization's ``ReadResponse`` turns
/// it into a response.
package enum ReadResult: Sendable {
    /// One entity, its shape (what to write) and its ETag when it has one.
    case entity(EntityRow, shape: EntityShape, tag: EntityTag?)
    /// The client's copy (`If-None-Match`) is current.
    case notModified(EntityTag)
    /// A collection, its first chunk read, the rest to be read as it is written.
    case entities(CollectionRows, shape: EntityShape)
    case property(ODataValue, EntityProperty)
    /// A property's `$value`, never null.
    case rawValue(ODataValue)
    /// `$count`, with `$skip` and `$top` applied.
    case count(Int)
    /// `$links` of a single-valued navigation: the linked entity's key, as `shape` writes its URI.
    case link(EntityRow, shape: EntityShape)
    /// A read with `$apply` (V4 only): one page of aggregated rows.
    case aggregated(AggregatedRows)
    /// `$links` of a collection.
    case links(CollectionRows, shape: EntityShape)
}
