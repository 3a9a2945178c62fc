import StrataCore

/// Writes rows into a service's tables with multi-row `INSERT … VALUES` statements, every value
/// bound, inside the transaction of ``ProvisioningTarget/load(into:_:)``.
package struct BulkLoader {
    let connection: any DatabaseConnection
    let schema: String?
    var dialect: SQLDialect { connection.dialect }
    /// Rows per statement: few enough for SQLite's and PostgreSQL's limits on bound values.
    static let rowsPerStatement = 500

    private var table = ""
    private var columns: [String] = []
    private var pending: [ODataValue] = []
    private var pendingRows = 0
    private var fullStatementSQL: String?

    init(connection: any DatabaseConnection, schema: String?) {
        self.connection = connection
        self.schema = schema
    }

    func qualified(_ table: String) -> String {
        guard let schema else { return dialect.quote(table) }
        return dialect.quote(schema) + "." + dialect.quote(table)
    }

    /// Starts a table: flushes the previous one's rows.
    package mutating func begin(_ table: String, columns: [String]) async throws {
        try await flush()
        self.table = table
        self.columns = columns
        fullStatementSQL = nil
        pending.reserveCapacity(columns.count * Self.rowsPerStatement)
    }

    /// Adds a row of the current table, one value per column.
    package mutating func append(_ row: ODataValue...) async throws {
        precondition(row.count == columns.count, "a row of \(table) needs \(columns.count) values")
        pending.append(contentsOf: row)
        pendingRows += 1
        if pendingRows == Self.rowsPerStatement { try await flush() }
    }

    /// Writes the rows appended since the last statement.
    package mutating func flush() async throws {
        guard pendingRows > 0 else { return }
        let sql: String
        if pendingRows == Self.rowsPerStatement, let full = fullStatementSQL {
            sql = full
        } else {
            sql = insertSQL(rows: pendingRows)
            if pendingRows == Self.rowsPerStatement { fullStatementSQL = sql }
        }
        try await connection.execute(SQLStatement(sql, binds: pending))
        pending.removeAll(keepingCapacity: true)
        pendingRows = 0
    }

    private func insertSQL(rows: Int) -> String {
        var sql = "INSERT INTO \(qualified(table)) (" + columns.map(dialect.quote).joined(separator: ", ") + ") VALUES "
        var position = 0
        for row in 0..<rows {
            if row > 0 { sql += ", " }
            sql += "("
            for column in 0..<columns.count {
                if column > 0 { sql += ", " }
                position += 1
                sql += dialect.placeholder(position)
            }
            sql += ")"
        }
        return sql
    }

    /// A column of an index.
    package enum IndexColumn: Sendable {
        /// Ordered by the collation Strata orders strings by (`COLLATE "C"` on PostgreSQL), so that
        /// `$orderby` on it can use the index.
        case text(String)
        case other(String)
    }

    /// Adds an index to a table of the service.
    package func createIndex(_ name: String, on table: String, columns: [IndexColumn]) async throws {
        let list = columns.map { column -> String in
            switch column {
            case .text(let name): return dialect.quote(name) + (dialect == .postgres ? " COLLATE \"C\"" : "")
            case .other(let name): return dialect.quote(name)
            }
        }.joined(separator: ", ")
        try await connection.execute(SQLStatement("CREATE INDEX \(dialect.quote(name)) ON \(qualified(table)) (\(list))"))
    }

    /// Flushes, lets PostgreSQL's sequences continue after the ids written, and updates the
    /// planners' statistics of `tables`.
    package mutating func finish(analyzing tables: [String]) async throws {
        try await flush()
        if let schema {
            try await PostgresServiceStore.resetSequences(schema: schema, connection)
            for table in tables {
                try await connection.execute(SQLStatement("ANALYZE \(qualified(table))"))
            }
        } else {
            try await connection.execute(SQLStatement("ANALYZE"))
        }
    }
}
