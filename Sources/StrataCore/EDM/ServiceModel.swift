/// The Entity Data Model of one service: what `$metadata` describes.
public struct ServiceModel: Sendable {
    /// The service name as it appears in URLs (`cardealer`).
    public var serviceName: String
    /// Schema namespace that qualifies type names (`edmexampleModel`).
    public var namespace: String
    public var containerName: String
    public private(set) var entityTypes: [EntityType]
    public private(set) var entitySets: [EntitySet]
    public private(set) var associations: [Association]

    private var typeIndex: [String: Int]
    private var setIndex: [String: Int]

    public init(
        serviceName: String,
        namespace: String,
        containerName: String,
        entityTypes: [EntityType],
        entitySets: [EntitySet],
        associations: [Association]
    ) {
        self.serviceName = serviceName
        self.namespace = namespace
        self.containerName = containerName
        self.entityTypes = entityTypes
        self.entitySets = entitySets
        self.associations = associations
        self.typeIndex = Dictionary(entityTypes.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        self.setIndex = Dictionary(entitySets.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
    }

    public func entitySet(named name: String) -> EntitySet? {
        setIndex[name].map { entitySets[$0] }
    }

    public func entityType(named name: String) -> EntityType? {
        typeIndex[name].map { entityTypes[$0] }
    }

    /// The entity type of a set; every set in a model has one.
    public func entityType(of set: EntitySet) -> EntityType {
        guard let type = entityType(named: set.entityTypeName) else {
            preconditionFailure("entity set \(set.name) names unknown type \(set.entityTypeName)")
        }
        return type
    }

    public func association(named name: String) -> Association? {
        associations.first { $0.name == name }
    }
}
