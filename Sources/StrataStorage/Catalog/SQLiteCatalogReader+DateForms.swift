import StrataCore
import StrataSQL

/// How each date column of a SQLite file stores its values (``DateStorageForm``), told from a
/// bounded sample of them when the catalog is read.
extension SQLiteCatalogReader {
    /// Values read from each end of a table. A few hundred tell a column's form; reading more would
    /// make loading a large file slow.
    static let dateSampleSize = 200

    /// The form of one date column: the first values in storage order, the last ones by rowid
    /// (where rows added later by another program would be), and, where an index leads with the
    /// column, its least and greatest values (a number sorts before any text, so a stray number
    /// shows there). Nil for Strata's own form and for a column that holds nothing yet.
    package func dateForm(of column: CatalogColumn, in table: String, isView: Bool, _ connection: any DatabaseConnection) async throws -> DateStorageForm? {
        guard let type = column.type else { return nil }
        let source = TableName(name: table)
        let name = column.name
        let limit = Self.dateSampleSize
        var values = try await connection.query(
            "SELECT \(identifier: name) FROM \(source) WHERE \(identifier: name) IS NOT NULL LIMIT \(limit)", types: [nil]).rows
        if !isView, try await hasRowid(table, connection) {
            values += try await connection.query(
                "SELECT \(identifier: name) FROM \(source) WHERE \(identifier: name) IS NOT NULL ORDER BY _rowid_ DESC LIMIT \(limit)",
                types: [nil]).rows
        }
        if !isView, try await leadsIndex(name, of: table, connection) {
            values += try await connection.query(
                "SELECT \(identifier: name) FROM \(source) WHERE \(identifier: name) IS NOT NULL ORDER BY \(identifier: name) LIMIT 1",
                types: [nil]).rows
            values += try await connection.query(
                "SELECT \(identifier: name) FROM \(source) WHERE \(identifier: name) IS NOT NULL ORDER BY \(identifier: name) DESC LIMIT 1",
                types: [nil]).rows
        }
        let samples: [DateSample] = values.compactMap { row in
            switch row.first {
            case .string(let text)?: return .text(text)
            case .int64(let number)?: return .integer(number)
            case .double(let number)?: return .real(number)
            case nil, .null?: return nil
            default: return .other
            }
        }
        return DateStorageForm.classify(samples, type: type)
    }

    /// Whether the table has a rowid that no column of its own shadows.
    private func hasRowid(_ table: String, _ connection: any DatabaseConnection) async throws -> Bool {
        let rows = try await connection.query(
            "SELECT wr FROM pragma_table_list(\(bind: .string(table))) WHERE type = 'table'", types: [.int64])
        guard rows.rows.first?.first?.integerValue == 0 else { return false }
        let shadowing = try await connection.query(
            "SELECT 1 FROM pragma_table_xinfo(\(bind: .string(table))) WHERE lower(name) = '_rowid_'", types: [.int64])
        return shadowing.rows.isEmpty
    }

    /// Whether an index of the table has the column first, so that its extremes are cheap to read.
    private func leadsIndex(_ column: String, of table: String, _ connection: any DatabaseConnection) async throws -> Bool {
        let rows = try await connection.query(
            "SELECT 1 FROM pragma_index_list(\(bind: .string(table))) AS l, pragma_index_info(l.name) AS i WHERE i.seqno = 0 AND i.name = \(bind: .string(column)) LIMIT 1",
            types: [.int64])
        return !rows.rows.isEmpty
    }
}
