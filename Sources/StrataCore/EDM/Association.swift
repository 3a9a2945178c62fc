/// A relationship between two entity types, one per foreign key in the database.
public struct Association: Sendable, Hashable {
    public struct End: Sendable, Hashable {
        public var role: String
        public var entityType: String
        public var multiplicity: Multiplicity
        public init(role: String, entityType: String, multiplicity: Multiplicity) {
            self.role = role
            self.entityType = entityType
            self.multiplicity = multiplicity
        }
    }

    public var name: String
    /// The referenced (primary key) side.
    public var principal: End
    /// The referencing (foreign key) side.
    public var dependent: End
    /// The principal's key properties (the foreign key's referenced columns), in the order they
    /// pair with ``dependentColumns``.
    public var principalColumns: [String]
    /// The dependent's properties that hold the foreign key.
    public var dependentColumns: [String]
    /// The constraint's name in the database, used in error messages.
    public var constraintName: String?

    public init(
        name: String,
        principal: End,
        dependent: End,
        principalColumns: [String],
        dependentColumns: [String],
        constraintName: String? = nil
    ) {
        self.name = name
        self.principal = principal
        self.dependent = dependent
        self.principalColumns = principalColumns
        self.dependentColumns = dependentColumns
        self.constraintName = constraintName
    }
}
