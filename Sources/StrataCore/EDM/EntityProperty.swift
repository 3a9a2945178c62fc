/// A structural property of an entity type: one column of the table behind it.
public struct EntityProperty: Sendable, Hashable {
    /// The property name: the column's name when that is an OData identifier, else one derived from
    /// it (`Unit Price` → `Unit_Price`); the server keeps the column's own name apart.
    public var name: String
    public var type: EDMPrimitiveType
    public var isNullable: Bool
    /// Maximum length of strings and binaries, when the column declares one.
    public var maxLength: Int?
    /// Whether the string or binary has a fixed length (`CHAR(n)`).
    public var isFixedLength: Bool
    public var precision: Int?
    public var scale: Int?
    /// The value is produced by the database (autoincrement or identity column).
    public var isServerGenerated: Bool
    /// The column has a default value in the database, so it may be omitted on insert.
    public var hasDefault: Bool

    public init(
        name: String,
        type: EDMPrimitiveType,
        isNullable: Bool = true,
        maxLength: Int? = nil,
        isFixedLength: Bool = false,
        precision: Int? = nil,
        scale: Int? = nil,
        isServerGenerated: Bool = false,
        hasDefault: Bool = false
    ) {
        self.name = name
        self.type = type
        self.isNullable = isNullable
        self.maxLength = maxLength
        self.isFixedLength = isFixedLength
        self.precision = precision
        self.scale = scale
        self.isServerGenerated = isServerGenerated
        self.hasDefault = hasDefault
    }
}
