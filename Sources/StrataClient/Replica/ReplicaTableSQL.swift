import StrataCore

/// The statements of one replicated table, written once per shape of the table: its name and
/// column names quoted (``SQLiteIdentifier``), every value a parameter.
struct ReplicaTableSQL: Sendable {
    let name: String
    let fields: [DataTableField]
    let keyPositions: [Int]
    let columns: String
    let keyOrder: String
    let create: String
    let select: String
    let selectAll: String
    let upsert: String
    let delete: String
    let selectServer: String
    let upsertServer: String
    let deleteServer: String
    /// The columns and key of the table, as `CREATE TABLE` takes them: a download's staging table
    /// is made with them, to become the table.
    let body: String
    /// `(columns) VALUES (?, …)`, after `INSERT OR REPLACE INTO` a table of this shape.
    let insertValues: String

    init(_ table: ReplicaState.Table) {
        name = table.definition.name
        fields = table.fields
        keyPositions = table.keyPositions
        let visible = SQLiteIdentifier(name), server = ReplicaDatabase.serverTable(name)
        let quoted = fields.map { SQLiteIdentifier($0.name).quoted }
        columns = quoted.joined(separator: ", ")
        let keys = keyPositions.map { quoted[$0] }
        keyOrder = keys.joined(separator: ", ")
        let definitions = zip(fields, quoted).map { field, name in
            "\(name) \(SQLiteColumnType.declared(field.type))" + (field.key ? " NOT NULL" : "")
        }
        let body = "(\(definitions.joined(separator: ", "))" + (keys.isEmpty ? ")" : ", PRIMARY KEY (\(keyOrder)))")
        self.body = body
        create = "CREATE TABLE \(visible) \(body); CREATE TABLE \(server) \(body);"
        let matchKey = keys.map { "\($0) = ?" }.joined(separator: " AND ")
        let parameters = Array(repeating: "?", count: fields.count).joined(separator: ", ")
        insertValues = "(\(columns)) VALUES (\(parameters))"
        select = "SELECT \(columns) FROM \(visible) WHERE \(matchKey)"
        selectAll = "SELECT \(columns) FROM \(visible) ORDER BY \(keyOrder)"
        upsert = "INSERT OR REPLACE INTO \(visible) (\(columns)) VALUES (\(parameters))"
        delete = "DELETE FROM \(visible) WHERE \(matchKey)"
        selectServer = "SELECT \(columns) FROM \(server) WHERE \(matchKey)"
        upsertServer = "INSERT OR REPLACE INTO \(server) (\(columns)) VALUES (\(parameters))"
        deleteServer = "DELETE FROM \(server) WHERE \(matchKey)"
    }

    /// Drops the table's two tables (before they are made again in another shape, or forgotten).
    static func drop(_ name: String) -> String {
        "DROP TABLE IF EXISTS \(SQLiteIdentifier(name)); DROP TABLE IF EXISTS \(ReplicaDatabase.serverTable(name));"
    }

    /// The name of an index of the table on these columns (a dot in it: never a replicated table's).
    static func indexName(_ table: String, _ columns: [String]) -> SQLiteIdentifier {
        SQLiteIdentifier("strata.index.\(table).\(columns.joined(separator: ","))")
    }
}
