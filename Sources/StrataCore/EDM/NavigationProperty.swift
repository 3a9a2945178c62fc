/// How many entities sit at one end of an association.
public enum Multiplicity: String, Sendable, Hashable {
    case one = "1"
    case zeroOrOne = "0..1"
    case many = "*"

    public var isCollection: Bool { self == .many }
}

/// A property that leads from an entity to related entities, derived from a foreign key.
public struct NavigationProperty: Sendable, Hashable {
    /// The navigation property's name, by default the related entity set's name.
    public var name: String
    /// The association (foreign key) this navigation follows.
    public var relationship: String
    public var fromRole: String
    public var toRole: String
    /// The entity set (table) at the far end.
    public var targetSet: String
    /// Multiplicity of the far end: `.many` for a collection.
    public var multiplicity: Multiplicity
    /// Pairs of (property of this entity, property of the target) whose columns join the two.
    public var joinColumns: [JoinColumn]

    public struct JoinColumn: Sendable, Hashable {
        public var local: String
        public var remote: String
        public init(local: String, remote: String) {
            self.local = local
            self.remote = remote
        }
    }

    public init(
        name: String,
        relationship: String,
        fromRole: String,
        toRole: String,
        targetSet: String,
        multiplicity: Multiplicity,
        joinColumns: [JoinColumn]
    ) {
        self.name = name
        self.relationship = relationship
        self.fromRole = fromRole
        self.toRole = toRole
        self.targetSet = targetSet
        self.multiplicity = multiplicity
        self.joinColumns = joinColumns
    }

    /// True when this side holds the foreign key columns (the dependent end of the association).
    public var isDependentSide: Bool { multiplicity != .many }
}
