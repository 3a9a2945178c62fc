/// An entity set: the collection of entities of one table, addressed as `/{service}/{Set}`.
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
