import StrataCore
import StrataSQL

/// Reads tables, columns, keys and foreign keys of a SQLite file through its pragma table functions.
package struct SQLiteCatalogReader: CatalogReader {
    package func readTables(_ connection: any DatabaseConnection) async throws -> [CatalogTable] {
        let objects = try await connection.query("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_strata\\_%' ESCAPE '\\' ORDER BY name",
            types: [.string, .string])
        var tables: [CatalogTable] = []
        for row in objects.rows {
            guard case .string(let name) = row[0], case .string(let kind) = row[1] else { continue }
            tables.append(try await readTable(name: name, isView: kind == "view", connection))
        }
        return tables
    }

    private func readTable(name: String, isView: Bool, _ connection: any DatabaseConnection) async throws -> CatalogTable {
        let info = try await connection.query(
            "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(\(bind: .string(name)))",
            types: [.string, .string, .int64, .string, .int64])
        var columns: [CatalogColumn] = []
        var keyed: [(position: Int64, name: String)] = []
        for row in info.rows {
            let columnName = row[0].stringValue ?? ""
            let declared = row[1].stringValue ?? ""
            let mapped = TypeMapping.sqlite(declared)
            if let position = row[4].integerValue, position > 0 { keyed.append((position, columnName)) }
            columns.append(CatalogColumn(
                name: columnName, declaredType: declared, type: mapped.type,
                isNullable: (row[2].integerValue ?? 0) == 0, maxLength: mapped.maxLength, isFixedLength: mapped.fixed,
                precision: mapped.precision, scale: mapped.scale, hasDefault: !row[3].isNull, isServerGenerated: false))
        }
        let primaryKey = keyed.sorted { $0.position < $1.position }.map(\.name)
        // A single INTEGER primary key is SQLite's rowid: the database assigns it when an insert omits it.
        if primaryKey.count == 1, let index = columns.firstIndex(where: { $0.name == primaryKey[0] }),
           TypeMapping.split(columns[index].declaredType).name == "INTEGER" {
            columns[index].isServerGenerated = true
            columns[index].isNullable = false
        }
        for keyColumn in primaryKey {
            // SQLite allows NULL in non-INTEGER primary keys of ordinary tables, but keys are never null in OData.
            if let index = columns.firstIndex(where: { $0.name == keyColumn }) { columns[index].isNullable = false }
        }
        for index in columns.indices where columns[index].type == .dateTime || columns[index].type == .dateTimeOffset {
            // A view that cannot be evaluated (it names a table dropped since) still loads, as before:
            // its dates are taken to be in Strata's form, and reading it fails as it always did.
            columns[index].dateForm = (try? await dateForm(of: columns[index], in: name, isView: isView, connection)) ?? nil
        }
        return CatalogTable(
            name: name, isView: isView, columns: columns, primaryKey: primaryKey,
            uniqueKeys: isView ? [] : try await uniqueKeys(of: name, connection),
            foreignKeys: isView ? [] : try await foreignKeys(of: name, primaryKeyOf: { try await self.primaryKey(of: $0, connection) }, connection))
    }

    private func primaryKey(of table: String, _ connection: any DatabaseConnection) async throws -> [String] {
        let rows = try await connection.query(
            "SELECT name FROM pragma_table_info(\(bind: .string(table))) WHERE pk > 0 ORDER BY pk", types: [.string])
        return rows.rows.compactMap { $0[0].stringValue }
    }

    private func uniqueKeys(of table: String, _ connection: any DatabaseConnection) async throws -> [[String]] {
        let indexes = try await connection.query(
            "SELECT name FROM pragma_index_list(\(bind: .string(table))) WHERE \"unique\" = 1 AND origin <> 'pk' AND partial = 0",
            types: [.string])
        var keys: [[String]] = []
        for row in indexes.rows {
            guard let index = row[0].stringValue else { continue }
            let columns = try await connection.query(
                "SELECT name FROM pragma_index_info(\(bind: .string(index))) ORDER BY seqno", types: [.string])
            let names = columns.rows.map { $0[0].stringValue }
            // Expression indexes have NULL column names; they cannot identify rows by columns.
            if !names.isEmpty, names.allSatisfy({ $0 != nil }) { keys.append(names.compactMap { $0 }) }
        }
        return keys
    }

    private func foreignKeys(
        of table: String,
        primaryKeyOf: (String) async throws -> [String],
        _ connection: any DatabaseConnection
    ) async throws -> [CatalogForeignKey] {
        let rows = try await connection.query(
            "SELECT id, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(\(bind: .string(table))) ORDER BY id, seq",
            types: [.int64, .string, .string, .string])
        var grouped: [(id: Int64, fk: CatalogForeignKey, implicitTarget: Bool)] = []
        for row in rows.rows {
            let id = row[0].integerValue ?? 0
            let target = row[1].stringValue ?? ""
            let from = row[2].stringValue ?? ""
            let to = row[3].stringValue
            if let last = grouped.last, last.id == id {
                grouped[grouped.count - 1].fk.columns.append(from)
                if let to { grouped[grouped.count - 1].fk.referencedColumns.append(to) }
            } else {
                grouped.append((id, CatalogForeignKey(name: nil, columns: [from], referencedTable: target,
                                                      referencedColumns: to.map { [$0] } ?? []), to == nil))
            }
        }
        var result: [CatalogForeignKey] = []
        for var entry in grouped {
            // `REFERENCES T` without columns refers to T's primary key.
            if entry.implicitTarget { entry.fk.referencedColumns = try await primaryKeyOf(entry.fk.referencedTable) }
            if entry.fk.columns.count == entry.fk.referencedColumns.count { result.append(entry.fk) }
        }
        return result
    }
}
