import StrataCore
import StrataSQL

/// Reads tables, columns, keys and foreign keys of one PostgreSQL schema from `pg_catalog`.
struct PostgresCatalogReader: CatalogReader {
    let schema: String

    func readTables(_ connection: any DatabaseConnection) async throws -> [CatalogTable] {
        let relations = try await connection.query("""
            SELECT c.relname::text, c.relkind::text
            FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = \(bind: .string(schema)) AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
            ORDER BY c.relname
            """, types: [.string, .string])
        var tables: [String: CatalogTable] = [:]
        var order: [String] = []
        for row in relations.rows {
            guard let name = row[0].stringValue, let kind = row[1].stringValue else { continue }
            tables[name] = CatalogTable(name: name, isView: kind == "v" || kind == "m", columns: [], primaryKey: [],
                                        uniqueKeys: [], foreignKeys: [])
            order.append(name)
        }
        try await readColumns(into: &tables, connection)
        try await readKeys(into: &tables, connection)
        try await readForeignKeys(into: &tables, connection)
        return order.compactMap { tables[$0] }
    }

    private func readColumns(into tables: inout [String: CatalogTable], _ connection: any DatabaseConnection) async throws {
        let rows = try await connection.query("""
            SELECT c.relname::text, a.attname::text, t.typname::text, a.atttypmod, a.attnotnull, a.atthasdef,
                   a.attidentity::text, a.attgenerated::text, coalesce(pg_get_expr(d.adbin, d.adrelid), '')
            FROM pg_catalog.pg_attribute a
            JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
            LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
            WHERE n.nspname = \(bind: .string(schema)) AND a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
            ORDER BY c.relname, a.attnum
            """,
            types: [.string, .string, .string, .int32, .boolean, .boolean, .string, .string, .string])
        for row in rows.rows {
            guard let table = row[0].stringValue, tables[table] != nil, let name = row[1].stringValue,
                  let typeName = row[2].stringValue else { continue }
            let typmod: Int32
            if case .int32(let v) = row[3] { typmod = v } else { typmod = -1 }
            let mapped = TypeMapping.postgres(typeName: typeName, typmod: typmod)
            let identity = row[6].stringValue ?? ""
            let generated = row[7].stringValue ?? ""
            let defaultExpression = row[8].stringValue ?? ""
            tables[table]!.columns.append(CatalogColumn(
                name: name, declaredType: typeName, type: mapped?.type,
                isNullable: row[4] != .boolean(true), maxLength: mapped?.maxLength, isFixedLength: mapped?.fixed ?? false,
                precision: mapped?.precision, scale: mapped?.scale,
                hasDefault: row[5] == .boolean(true) || !identity.isEmpty || !generated.isEmpty,
                isServerGenerated: !identity.isEmpty || !generated.isEmpty || defaultExpression.hasPrefix("nextval("),
                // A `date` holds no time of day, which PostgreSQL would drop without a word; its form
                // says so, and a write of a time is refused as on a SQLite column of dates.
                dateForm: typeName == "date" ? .text(DateTextLayout(precisions: [.day])) : nil))
        }
    }

    private func readKeys(into tables: inout [String: CatalogTable], _ connection: any DatabaseConnection) async throws {
        // Unique indexes over plain columns, including the primary key; partial and expression indexes cannot identify rows.
        let rows = try await connection.query("""
            SELECT c.relname::text, i.relname::text, x.indisprimary, k.ord::int4, a.attname::text
            FROM pg_catalog.pg_index x
            JOIN pg_catalog.pg_class c ON c.oid = x.indrelid
            JOIN pg_catalog.pg_class i ON i.oid = x.indexrelid
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            CROSS JOIN LATERAL unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
            JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
            WHERE n.nspname = \(bind: .string(schema)) AND x.indisunique AND x.indpred IS NULL AND x.indexprs IS NULL
              AND k.ord <= x.indnkeyatts
            ORDER BY c.relname, x.indisprimary DESC, i.relname, k.ord
            """, types: [.string, .string, .boolean, .int32, .string])
        var current: (table: String, index: String, primary: Bool, columns: [String])?
        func flush() {
            guard let entry = current, tables[entry.table] != nil else { return }
            if entry.primary {
                tables[entry.table]!.primaryKey = entry.columns
            } else {
                tables[entry.table]!.uniqueKeys.append(entry.columns)
            }
        }
        for row in rows.rows {
            guard let table = row[0].stringValue, let index = row[1].stringValue, let column = row[4].stringValue else { continue }
            if current?.table == table && current?.index == index {
                current!.columns.append(column)
            } else {
                flush()
                current = (table, index, row[2] == .boolean(true), [column])
            }
        }
        flush()
    }

    private func readForeignKeys(into tables: inout [String: CatalogTable], _ connection: any DatabaseConnection) async throws {
        // Only foreign keys between tables of this schema (this service) become associations.
        let rows = try await connection.query("""
            SELECT con.conname::text, c.relname::text, f.relname::text, k.ord::int4, a.attname::text, fa.attname::text
            FROM pg_catalog.pg_constraint con
            JOIN pg_catalog.pg_class c ON c.oid = con.conrelid
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            JOIN pg_catalog.pg_class f ON f.oid = con.confrelid
            JOIN pg_catalog.pg_namespace fn ON fn.oid = f.relnamespace
            CROSS JOIN LATERAL unnest(con.conkey) WITH ORDINALITY AS k(attnum, ord)
            JOIN pg_catalog.pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum
            JOIN pg_catalog.pg_attribute fa ON fa.attrelid = con.confrelid AND fa.attnum = con.confkey[k.ord]
            WHERE con.contype = 'f' AND n.nspname = \(bind: .string(schema)) AND fn.nspname = \(bind: .string(schema))
            ORDER BY c.relname, con.conname, k.ord
            """, types: [.string, .string, .string, .int32, .string, .string])
        var current: (table: String, key: CatalogForeignKey)?
        func flush() {
            guard let entry = current, tables[entry.table] != nil else { return }
            tables[entry.table]!.foreignKeys.append(entry.key)
        }
        for row in rows.rows {
            guard let name = row[0].stringValue, let table = row[1].stringValue, let target = row[2].stringValue,
                  let column = row[4].stringValue, let referenced = row[5].stringValue else { continue }
            if current?.table == table && current?.key.name == name {
                current!.key.columns.append(column)
                current!.key.referencedColumns.append(referenced)
            } else {
                flush()
                current = (table, CatalogForeignKey(name: name, columns: [column], referencedTable: target, referencedColumns: [referenced]))
            }
        }
        flush()
    }
}
