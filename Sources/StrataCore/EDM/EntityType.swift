/// An entity type: the shape of the rows of one table or view.
public struct EntityType: Sendable, Hashable {
    public var name: String { didSet { qualifiedName = Self.qualify(namespace, name) } }
    public var namespace: String { didSet { qualifiedName = Self.qualify(namespace, name) } }
    /// Properties in column order.
    public var properties: [EntityProperty] { didSet { keyProperties = Self.keys(keyNames, properties) } }
    /// Names of the key properties, in key order.
    public var keyNames: [String] { didSet { keyProperties = Self.keys(keyNames, properties) } }
    public var navigationProperties: [NavigationProperty]

    // Derived, but stored: every request asks for them, and building them allocated each time.
    /// `Namespace.Name`, as used in `__metadata.type`.
    public private(set) var qualifiedName: String
    /// The key properties in key order.
    public private(set) var keyProperties: [EntityProperty]

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
        self.qualifiedName = Self.qualify(namespace, name)
        self.keyProperties = Self.keys(keyNames, properties)
    }

    private static func qualify(_ namespace: String, _ name: String) -> String {
        namespace + "." + name
    }

    private static func keys(_ names: [String], _ properties: [EntityProperty]) -> [EntityProperty] {
        names.compactMap { name in properties.first { $0.name == name } }
    }

    public func property(named name: String) -> EntityProperty? {
        properties.first { $0.name == name }
    }

    public func navigationProperty(named name: String) -> NavigationProperty? {
        navigationProperties.first { $0.name == name }
    }
}
