/// An entity set: the collection of entities of one table, addressed as `/{service}/{Set}`. Its name
/// is the table's when that is an OData identifier, else one derived from it (`Order Details` →
/// `Order_Details`); the server keeps the table's own name apart.
public struct EntitySet: Sendable, Hashable {
    public var name: String
    public var entityTypeName: String
    /// Why the set refuses writes (a view, or a table without a primary key); nil when writable.
    public var readOnlyReason: String?

    public init(name: String, entityTypeName: String, readOnlyReason: String? = nil) {
        self.name = name
        self.entityTypeName = entityTypeName
        self.readOnlyReason = readOnlyReason
    }

    public var isReadOnly: Bool { readOnlyReason != nil }
}
