/// An entity type: the shape of the rows of one table or view.
public struct EntityType: Sendable, Hashable {
    public var name: String
    public var namespace: String
    /// Properties in column order.
    public var properties: [EntityProperty]
    /// Names of the key properties, in key order.
    public var keyNames: [String]
    public var navigationProperties: [NavigationProperty]

    public init(
        name: String,
        namespace: String,
        properties: [EntityProperty],
        keyNames: [String],
        navigationProperties: [NavigationProperty] = []
    ) {
        self.name = name
        self.namespace = namespace
        self.properties = properties
        self.keyNames = keyNames
        self.navigationProperties = navigationProperties
    }

    /// `Namespace.Name`, as used in `__metadata.type`.
    public var qualifiedName: String { "\(namespace).\(name)" }

    public func property(named name: String) -> EntityProperty? {
        properties.first { $0.name == name }
    }

    public func navigationProperty(named name: String) -> NavigationProperty? {
        navigationProperties.first { $0.name == name }
    }

    /// The key properties in key order.
    public var keyProperties: [EntityProperty] {
        keyNames.compactMap { property(named: $0) }
    }
}
