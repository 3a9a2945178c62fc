import StrataCore
import StrataSQL
import StrataIdentity
import StrataStorage

/// The statements one write makes, on the connection of the transaction it runs in.
///
/// Every method reads and writes whole entities: all properties of the type, in the type's
/// property order, so that the ETag of a row read back by `RETURNING` equals the one a GET computes.
package struct EntityWriter: Sendable {
    let service: ODataService
    let connection: any DatabaseConnection

    package init(service: ODataService, connection: any DatabaseConnection) {
        self.service = service
        self.connection = connection
    }

    private var dialect: SQLDialect { connection.dialect }
    private var planner: PathPlanner { PathPlanner(storage: service.storage) }

    // MARK: Reading inside the transaction

    /// The entity a path addresses, all properties, locked until the transaction ends; nil when missing.
    package func fetchLocked(_ steps: ArraySlice<ResolvedPath.Step>) async throws -> [ODataValue]? {
        let target = steps[steps.endIndex - 1]
        var query = planner.plan(steps: steps, columns: target.type.properties)
        query.limit = 1
        // An entity path names a key or a single-valued navigation at every step: one row.
        let rows = try await connection.query(SQLRenderer.renderLocking(query, dialect: dialect).oneRow(), types: target.type.properties.map(\.type))
        return rows.rows.first
    }

    /// Chosen columns of the entity a path addresses; nil when it does not exist.
    func fetch(_ steps: ArraySlice<ResolvedPath.Step>, columns: [EntityProperty]) async throws -> [ODataValue]? {
        var query = planner.plan(steps: steps, columns: columns)
        if columns.isEmpty { query.items = [SelectColumn(expression: .template([.text("1")]), alias: nil)] }
        query.limit = 1
        let rows = try await connection.query(SQLRenderer.render(query, dialect: dialect).oneRow(), types: columns.map(\.type))
        return rows.rows.first
    }

    /// Whether the row with this key is one `access` lets the caller touch.
    package func allows(_ access: RowAccess, action: TableAction, set: EntitySet, type: EntityType, key: [ODataValue]) async throws -> Bool {
        guard RowFilter.isRestricted(access) else { return true }
        var query = SelectQuery(items: [SelectColumn(expression: .template([.text("1")]), alias: nil)],
                                from: service.storage.table(set.name), alias: PathPlanner.targetAlias)
        query.filter(planner.keyPredicate(alias: PathPlanner.targetAlias, set: set, type: type, values: key))
        RowFilter.restrict(&query, to: access, set: set, type: type, storage: service.storage)
        query.limit = 1
        return try await !connection.query(SQLRenderer.render(query, dialect: dialect).oneRow()).rows.isEmpty
    }

    // MARK: Writing

    /// Inserts a row and returns it as stored: defaults, generated keys and trigger-set values included.
    /// `values` are by property name, as are the assignments of ``update(_:type:key:assignments:)``.
    package func insert(into set: EntitySet, type: EntityType, values: [(column: String, value: ODataValue)]) async throws -> [ODataValue] {
        let storage = service.storage
        var insert = InsertStatement(
            table: storage.table(set.name),
            values: try values.map { (column: column($0.column, of: type), value: try storage.stored($0.value, table: set.name, column: $0.column)) },
            returning: type.properties.map { column($0.name, of: type) })
        insert.reads = reads(of: set, type: type)
        let statement = SQLRenderer.render(insert, dialect: dialect).oneRow()
        let rows = try await diagnosing(.insert, set: set, type: type, values: Dictionary(values, uniquingKeysWith: { _, last in last })) {
            try await connection.query(statement, types: type.properties.map(\.type))
        }
        guard let row = rows.rows.first else {
            throw StorageError.failed("INSERT INTO \(set.name) returned no row")
        }
        try await advanceSequences(of: set, type: type, values: values)
        return row
    }

    /// Updates the row with `key` and returns it as stored.
    package func update(_ set: EntitySet, type: EntityType, key: [ODataValue], assignments: [(column: String, value: AssignedValue)]) async throws -> [ODataValue] {
        let storage = service.storage
        var update = UpdateStatement(
            table: storage.table(set.name),
            assignments: try assignments.map { assignment in
                let stored = column(assignment.column, of: type)
                guard case .value(let value) = assignment.value else { return (column: stored, value: assignment.value) }
                return (column: stored, value: .value(try storage.stored(value, table: set.name, column: assignment.column)))
            },
            key: Array(zip(type.keyNames, key)).map { (column: column($0.0, of: type), value: $0.1) },
            returning: type.properties.map { column($0.name, of: type) })
        update.keyCondition = keyCondition(of: set, type: type, key: key)
        update.reads = reads(of: set, type: type)
        let statement = SQLRenderer.render(update, dialect: dialect).oneRow()
        let rows = try await diagnosing(.update, set: set, type: type, values: Self.assignedValues(assignments)) {
            try await connection.query(statement, types: type.properties.map(\.type))
        }
        guard let row = rows.rows.first else {
            throw StorageError.failed("UPDATE \(set.name) matched no row although it was locked")
        }
        return row
    }

    package func delete(from set: EntitySet, type: EntityType, row: [ODataValue]) async throws {
        let key = Self.key(of: type, in: row)
        // Not marked as touching one row: ON DELETE CASCADE may remove any number of dependent rows.
        var delete = DeleteStatement(table: service.storage.table(set.name),
                                     key: Array(zip(type.keyNames, key)).map { (column: column($0.0, of: type), value: $0.1) })
        delete.keyCondition = keyCondition(of: set, type: type, key: key)
        let statement = SQLRenderer.render(delete, dialect: dialect)
        let principalValues = Dictionary(zip(type.properties.map(\.name), row), uniquingKeysWith: { a, _ in a })
        _ = try await diagnosing(.delete, set: set, type: type, values: principalValues) {
            try await connection.execute(statement)
            return SQLRows(columns: [], rows: [])
        }
    }

    /// SQLite's default expressions for a table's columns, by property name, for `PUT` of a
    /// property a body omits.
    func catalogDefaults(of set: EntitySet, type: EntityType) async throws -> [String: CatalogDefault] {
        guard dialect == .sqlite else { return [:] }
        let rows = try await connection.query(
            "SELECT name, dflt_value FROM pragma_table_info(\(bind: .string(service.storage.names.table(set.name))))", types: [.string, .string])
        let properties = Dictionary(type.properties.map { (column($0.name, of: type), $0.name) }, uniquingKeysWith: { a, _ in a })
        var defaults: [String: CatalogDefault] = [:]
        for row in rows.rows {
            if let name = row[0].stringValue, let property = properties[name], let expression = row[1].stringValue {
                defaults[property] = CatalogDefault(expression: expression)
            }
        }
        return defaults
    }

    /// The database name of a property's column.
    func column(_ property: String, of type: EntityType) -> String {
        service.storage.column(property, of: type)
    }

    // MARK: Helpers

    /// How RETURNING reads the columns whose dates are stored in another form than Strata's.
    private func reads(of set: EntitySet, type: EntityType) -> [String: SQLTerm] {
        let storage = service.storage
        guard storage.hasDateForms(in: set.name) else { return [:] }
        // Keyed by the database's column names, as the statements' RETURNING lists them.
        var reads: [String: SQLTerm] = [:]
        for property in type.properties where storage.dateForm(table: set.name, column: property.name) != nil {
            reads[column(property.name, of: type)] = storage.selected(alias: nil, table: set.name, column: property.name)
        }
        return reads
    }

    /// The WHERE of an UPDATE or DELETE by key, when a date key is stored in another form than
    /// Strata's (plain equalities would miss its row); nil otherwise.
    private func keyCondition(of set: EntitySet, type: EntityType, key: [ODataValue]) -> SQLTerm? {
        let storage = service.storage
        guard type.keyNames.contains(where: { storage.dateForm(table: set.name, column: $0) != nil }) else { return nil }
        return .and(zip(type.keyNames, key).map { storage.equality(alias: nil, table: set.name, column: $0, value: $1) })
    }

    /// The key values of a full row (type property order), in key order.
    package static func key(of type: EntityType, in row: [ODataValue]) -> [ODataValue] {
        type.keyNames.map { name in row[type.properties.firstIndex { $0.name == name }!] }
    }

    package static func value(_ name: String, of type: EntityType, in row: [ODataValue]) -> ODataValue {
        guard let index = type.properties.firstIndex(where: { $0.name == name }) else { return .null }
        return row[index]
    }

    /// `Person(1)`: the entity's URI relative to the service root.
    static func relativeURI(set: EntitySet, type: EntityType, row: [ODataValue]) -> String {
        set.name + KeyPredicate.forKey(names: type.keyNames, values: key(of: type, in: row)).urlText
    }

    private static func assignedValues(_ assignments: [(column: String, value: AssignedValue)]) -> [String: ODataValue] {
        var assigned: [String: ODataValue] = [:]
        for case let (column, .value(value)) in assignments { assigned[column] = value }
        return assigned
    }

    /// Runs a statement; when SQLite reports a foreign key failure without saying which key, finds
    /// the relationship at fault so that the 409 names the constraint and table, as PostgreSQL's does.
    /// `values` are built only for a diagnosis, so that a write that succeeds does not pay for them.
    private func diagnosing(_ action: TableAction, set: EntitySet, type: EntityType, values: @autoclosure () -> [String: ODataValue],
                            _ body: () async throws -> SQLRows) async throws -> SQLRows {
        do {
            return try await body()
        } catch StorageError.foreignKeyViolation(nil, nil, let detail) where dialect == .sqlite {
            // A failed statement leaves a SQLite transaction usable, so the diagnosis can query.
            if let found = try await ForeignKeyDiagnosis(writer: self).diagnose(action, type: type, values: values()) {
                throw StorageError.foreignKeyViolation(constraint: found.constraint, table: found.table, detail: found.detail)
            }
            throw StorageError.foreignKeyViolation(constraint: nil, table: set.name, detail: detail)
        } catch StorageError.uniqueViolation(nil, nil, let detail) {
            throw StorageError.uniqueViolation(constraint: nil, table: set.name, detail: detail)
        } catch StorageError.constraintViolation(nil, nil, let detail) {
            throw StorageError.constraintViolation(constraint: nil, table: set.name, detail: detail)
        }
    }

    /// A query on the transaction's connection, for helpers in other files.
    func query(_ statement: SQLStatement, types: [EDMPrimitiveType?] = []) async throws -> SQLRows {
        try await connection.query(statement, types: types)
    }
}

/// Which relationship a SQLite foreign key failure broke: the association whose referenced row is
/// missing (insert, update) or whose referencing rows remain (delete).
package struct ForeignKeyDiagnosis {
    let writer: EntityWriter

    struct Finding {
        var constraint: String
        var table: String
        var detail: String
    }

    func diagnose(_ action: TableAction, type: EntityType, values: [String: ODataValue]) async throws -> Finding? {
        let model = writer.service.model
        for association in model.associations {
            let name = association.constraintName ?? association.name
            guard let principal = model.entityType(named: Self.shortName(association.principal.entityType)),
                  let dependent = model.entityType(named: Self.shortName(association.dependent.entityType)) else { continue }
            if action == .delete, principal.name == type.name {
                let referenced = association.principalColumns.map { values[$0] ?? .null }
                guard !referenced.contains(where: \.isNull) else { continue }
                if try await exists(dependent, properties: association.dependentColumns, values: referenced) {
                    return Finding(constraint: name, table: dependent.name,
                                   detail: "rows of \(dependent.name) still refer to this \(type.name) through \(association.dependentColumns.joined(separator: ", ")); delete or relink them first")
                }
            } else if action != .delete, dependent.name == type.name {
                let referencing = association.dependentColumns.map { values[$0] }
                guard referencing.allSatisfy({ $0 != nil && !$0!.isNull }) else { continue }
                let keyValues = referencing.compactMap { $0 }
                if try await !exists(principal, properties: association.principalColumns, values: keyValues) {
                    let pairs = zip(association.dependentColumns, keyValues).map { "\($0) = \($1)" }.joined(separator: ", ")
                    return Finding(constraint: name, table: type.name, detail: "\(pairs) refers to no \(principal.name)")
                }
            }
        }
        return nil
    }

    /// Whether a row of `type`'s set has these values in these properties.
    private func exists(_ type: EntityType, properties: [String], values: [ODataValue]) async throws -> Bool {
        var query = SelectQuery(items: [SelectColumn(expression: .template([.text("1")]), alias: nil)],
                                from: writer.service.storage.table(Self.setName(of: type, in: writer.service.model)), alias: "t0")
        query.filter(.and(zip(properties, values).map { .equals(.column(alias: "t0", name: writer.column($0, of: type)), .value($1)) }))
        query.limit = 1
        return try await !writer.query(SQLRenderer.render(query, dialect: writer.service.dialect)).rows.isEmpty
    }

    /// The entity set of a type (each has one, named as the type unless a model renames it).
    static func setName(of type: EntityType, in model: ServiceModel) -> String {
        model.entitySets.first { $0.entityTypeName == type.name }?.name ?? type.name
    }

    package static func shortName(_ qualified: String) -> String {
        qualified.split(separator: ".").last.map(String.init) ?? qualified
    }
}
