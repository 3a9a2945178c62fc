import StrataCore

/// The tables and columns client SQL may name, with their EDM types.
///
/// The server builds one per service from its ``ServiceModel`` (``init(model:)``) and keeps it with
/// the model; tests and other hosts can list tables directly (``init(tables:)``). Only the tables in
/// the catalog exist for client SQL: system catalogs and anything else in the database are unknown.
///
/// ## Name matching
/// Tables and columns have two names: the catalog's (the OData name: `Order_Details`, `Unit_Price`)
/// and the one they have in the database (`Order Details`, `Unit Price`); the two are the same for
/// every name that is an OData identifier. A query may use either. A quoted name (`"Person"`,
/// `"Order Details"`) matches only an exact spelling: the catalog's first, then the database's. An
/// unquoted name matches an exact spelling the same way; failing that, it matches ignoring case when
/// exactly one table or column does, and is refused as ambiguous when several do (`Name` and `NAME`
/// in one table). The emitted SQL always uses the database's spelling, quoted; results name columns
/// by their catalog names.
public struct SQLCatalog: Sendable {
    /// A table (or view) with its columns in order.
    public struct Table: Sendable, Hashable {
        public var name: String
        /// The table's name in the database.
        public var storedName: String
        public var columns: [Column]

        public init(name: String, storedName: String? = nil, columns: [Column]) {
            self.name = name
            self.storedName = storedName ?? name
            self.columns = columns
        }
    }

    /// A column, its type, and whether it may hold NULL.
    public struct Column: Sendable, Hashable {
        public var name: String
        /// The column's name in the database.
        public var storedName: String
        public var type: EDMPrimitiveType
        /// False for key and NOT NULL columns. The emitter then orders by the column without
        /// `NULLS FIRST/LAST`, which would keep PostgreSQL from reading the order off an index.
        /// A catalog that does not know says true, which is always safe.
        public var isNullable: Bool

        public init(name: String, storedName: String? = nil, type: EDMPrimitiveType, isNullable: Bool = true) {
            self.name = name
            self.storedName = storedName ?? name
            self.type = type
            self.isNullable = isNullable
        }
    }

    /// The tables in the order given.
    public private(set) var tables: [Table]
    private var exact: [String: Int]
    private var stored: [String: Int]
    private var folded: [String: [Int]]

    public init(tables: [Table]) {
        self.tables = tables
        self.exact = [:]
        self.stored = [:]
        self.folded = [:]
        for (index, table) in tables.enumerated() where exact[table.name] == nil {
            exact[table.name] = index
            folded[table.name.lowercased(), default: []].append(index)
        }
        for (index, table) in tables.enumerated() where table.storedName != table.name && stored[table.storedName] == nil {
            stored[table.storedName] = index
            if !folded[table.storedName.lowercased(), default: []].contains(index) {
                folded[table.storedName.lowercased(), default: []].append(index)
            }
        }
    }

    /// One table per entity set, named as the set, with the entity type's properties as columns.
    /// Key properties count as never null, as they do for OData's own reads. The server gives each
    /// table's and column's database name where it differs (`storedTable`, `storedColumn`).
    public init(
        model: ServiceModel,
        storedTable: (EntitySet) -> String = { $0.name },
        storedColumn: (EntityType, EntityProperty) -> String = { $1.name }
    ) {
        self.init(tables: model.entitySets.map { set in
            let type = model.entityType(of: set)
            return Table(name: set.name, storedName: storedTable(set), columns: type.properties.map { property in
                Column(name: property.name, storedName: storedColumn(type, property), type: property.type,
                       isNullable: property.isNullable && !type.keyNames.contains(property.name))
            })
        })
    }

    /// The table with exactly this name.
    public func table(named name: String) -> Table? {
        exact[name].map { tables[$0] }
    }

    /// What looking up a name found.
    enum Match<Found> {
        case found(Found)
        case ambiguous([Found])
        case missing
    }

    /// Resolves a table name by the rule above.
    func resolveTable(_ name: SQLIdentifier) -> Match<Table> {
        if let index = exact[name.name] ?? stored[name.name] { return .found(tables[index]) }
        if name.isQuoted { return .missing }
        let candidates = folded[name.name.lowercased()] ?? []
        switch candidates.count {
        case 0: return .missing
        case 1: return .found(tables[candidates[0]])
        default: return .ambiguous(candidates.map { tables[$0] })
        }
    }
}

extension SQLCatalog.Table {
    /// Resolves a column name of this table by the catalog's rule.
    func resolveColumn(_ name: SQLIdentifier) -> SQLCatalog.Match<SQLCatalog.Column> {
        if let column = exactColumn(name.name) { return .found(column) }
        if name.isQuoted { return .missing }
        let candidates = columns(folding: name.name)
        switch candidates.count {
        case 0: return .missing
        case 1: return .found(candidates[0])
        default: return .ambiguous(candidates)
        }
    }
}

extension SQLCatalog.Table {
    /// The column with this exact name: the catalog's, else the database's.
    func exactColumn(_ name: String) -> SQLCatalog.Column? {
        columns.first { $0.name == name } ?? columns.first { $0.storedName == name }
    }

    /// The columns whose catalog or database name equals `name` ignoring case.
    func columns(folding name: String) -> [SQLCatalog.Column] {
        let lowered = name.lowercased()
        return columns.filter { $0.name.lowercased() == lowered || $0.storedName.lowercased() == lowered }
    }
}
