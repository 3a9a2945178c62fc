import StrataCore
import StrataSQL
import StrataStorage

extension ModelFile {
    /// The catalog as the file shapes it: names given, columns hidden, types overridden, keys and
    /// relationships declared. Everything the file names must exist; anything it cannot do is an
    /// error at its line, and then nothing of the file applies.
    func apply(to catalog: [CatalogTable], dialect: SQLDialect) throws(ModelFileError) -> [CatalogTable] {
        var tables = catalog
        let index = Dictionary(catalog.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        var seen: Set<String> = []
        for entry in self.tables {
            guard let position = index[entry.table] else {
                throw error(entry.line, "There is no table or view named '\(entry.table)' in the service (names are the database's, case included): \(Self.list(catalog.map(\.name))).")
            }
            guard seen.insert(entry.table).inserted else {
                throw error(entry.line, "'\(entry.table)' is described twice: merge the two entries.")
            }
            tables[position] = try apply(entry, to: tables[position], dialect: dialect)
        }
        // Relationships last: they refer to other tables' keys and columns as shaped above.
        for entry in self.tables {
            let position = index[entry.table]!
            for relationship in entry.relationships {
                try apply(relationship, to: position, in: &tables)
            }
        }
        return tables
    }

    private func apply(_ entry: Table, to catalogTable: CatalogTable, dialect: SQLDialect) throws(ModelFileError) -> CatalogTable {
        var table = catalogTable
        table.exposedName = entry.name?.value
        if let track = entry.track, track.value {
            if table.isView {
                throw error(track.line, "\(table.name) is a view: only tables can be tracked (a view has no rows of its own for a trigger to see); remove 'track'.")
            }
            if table.primaryKey.isEmpty && entry.key == nil {
                throw error(track.line, "\(table.name) has no primary key: a tracked table needs one, or a 'key' declared here, to name its changed rows.")
            }
        }
        var hidden: Set<String> = []
        var restricted: [String: Int] = [:]
        for column in entry.columns {
            guard let position = table.columns.firstIndex(where: { $0.name == column.column }) else {
                throw error(column.line, "\(table.name) has no column '\(column.column)': \(Self.list(table.columns.map(\.name))).")
            }
            table.columns[position].exposedName = column.name?.value
            if let type = column.type {
                table.columns[position].type = try overridden(table.columns[position], to: type, table: table.name, dialect: dialect)
            }
            if column.hidden?.value == true { hidden.insert(column.column) }
            if let roles = column.readableBy {
                if column.hidden?.value == true {
                    throw error(roles.line, "\(table.name).\(column.column) is hidden from everyone; remove readableBy or hidden.")
                }
                table.columns[position].readableBy = Set(roles.value)
                restricted[column.column] = roles.line
            }
        }
        if let key = entry.key {
            if !table.primaryKey.isEmpty {
                throw error(key.line, "\(table.name) has a primary key (\(table.primaryKey.joined(separator: ", "))); a model file declares keys only for views and tables without one.")
            }
            for column in key.value where table.column(named: column) == nil {
                throw error(key.line, "The key of \(table.name) names '\(column)', which is not one of its columns: \(Self.list(table.columns.map(\.name))).")
            }
            for column in key.value where !(table.column(named: column)?.type?.canBeKey ?? false) {
                throw error(key.line, "\(table.name).\(column) cannot be part of a key: its type (\(table.column(named: column)?.type?.rawValue ?? "none")) cannot be written in a URL key.")
            }
            table.declaredKey = key.value
        }
        // A column some or all callers cannot see must not be one their reads need: the key addresses
        // entities, a foreign key joins them.
        let leftOut = hidden.map { name in (name, entry.columns.first { $0.column == name }?.hidden?.line ?? entry.line, "hidden") }
            + restricted.map { ($0.key, $0.value, "restricted to some roles") }
        for (name, line, how) in leftOut.sorted(by: { ($0.1, $0.0) < ($1.1, $1.0) }) {
            if (table.declaredKey ?? table.primaryKey).contains(name) {
                throw error(line, "\(table.name).\(name) is part of the key and cannot be \(how): an entity is addressed by its key.")
            }
            if let fk = table.foreignKeys.first(where: { $0.columns.contains(name) }) {
                throw error(line, "\(table.name).\(name) cannot be \(how): the relationship to \(fk.referencedTable) uses it. Keep the column, or serve a view without it.")
            }
        }
        table.columns.removeAll { hidden.contains($0.name) }
        table.uniqueKeys.removeAll { !hidden.isDisjoint(with: $0) }
        return table
    }

    /// The type a column is served as. SQLite stores any value in any column, so every override that
    /// its value coding reads is allowed; a PostgreSQL column has a real type, which the file
    /// cannot change.
    private func overridden(_ column: CatalogColumn, to type: Entry<EDMPrimitiveType>, table: String,
                            dialect: SQLDialect) throws(ModelFileError) -> EDMPrimitiveType {
        if type.value == column.type { return type.value }
        switch dialect {
        case .sqlite:
            guard type.value != .binary || column.type == .binary || column.type == nil else {
                throw error(type.line, "\(table).\(column.name) (\(column.declaredType)) cannot be served as Edm.Binary: its values are not stored as blobs.")
            }
            return type.value
        case .postgres:
            throw error(type.line, "\(table).\(column.name) is \(column.declaredType) in PostgreSQL, served as \(column.type?.rawValue ?? "nothing"); a model file cannot serve it as \(type.value.rawValue). Change the column's type (ALTER TABLE … ALTER COLUMN … TYPE …) or serve a view that casts it.")
        }
    }

    private func apply(_ relationship: Relationship, to position: Int, in tables: inout [CatalogTable]) throws(ModelFileError) {
        let table = tables[position]
        for column in relationship.columns where table.column(named: column) == nil {
            throw error(relationship.line, "\(table.name) has no column '\(column)' for its relationship to \(relationship.references): \(Self.list(table.columns.map(\.name))).")
        }
        guard let target = tables.first(where: { $0.name == relationship.references }) else {
            throw error(relationship.line, "A relationship of \(table.name) references '\(relationship.references)', which is not a table or view of the service: \(Self.list(tables.map(\.name))).")
        }
        let targetKey = target.primaryKey.isEmpty ? target.declaredKey ?? [] : target.primaryKey
        let referenced = relationship.referencedColumns ?? targetKey
        guard !referenced.isEmpty else {
            throw error(relationship.line, "\(target.name) has no key: give the referenced columns (referencedColumns: [...]) or declare a key for \(target.name).")
        }
        for column in referenced where target.column(named: column) == nil {
            throw error(relationship.line, "\(target.name) has no column '\(column)': \(Self.list(target.columns.map(\.name))).")
        }
        guard referenced.count == relationship.columns.count else {
            throw error(relationship.line, "The relationship of \(table.name) to \(target.name) pairs \(relationship.columns.count) column(s) with \(referenced.count); give as many columns as \(target.name)'s referenced columns (\(referenced.joined(separator: ", "))).")
        }
        if let existing = table.foreignKeys.firstIndex(where: {
            $0.columns == relationship.columns && $0.referencedTable == target.name && $0.referencedColumns == referenced
        }) {
            tables[position].foreignKeys[existing].navigationName = relationship.name?.value
            tables[position].foreignKeys[existing].reverseNavigationName = relationship.reverseName?.value
            return
        }
        tables[position].foreignKeys.append(CatalogForeignKey(
            name: nil, columns: relationship.columns, referencedTable: target.name, referencedColumns: referenced,
            navigationName: relationship.name?.value, reverseNavigationName: relationship.reverseName?.value, isDeclared: true))
    }

    private func error(_ line: Int, _ message: String) -> ModelFileError {
        ModelFileError(path: path, line: line, message: message)
    }

    /// `a, b, c` (or the first twenty and how many more), for messages that list what exists.
    static func list(_ names: [String]) -> String {
        let sorted = names.sorted()
        let shown = sorted.prefix(20).joined(separator: ", ")
        return sorted.count > 20 ? "\(shown) and \(sorted.count - 20) more" : shown
    }
}
