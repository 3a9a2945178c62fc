import StrataCore
import StrataSQL
import StrataStorage

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
    private var fullStatement: SQLStatement?

    init(connection: any DatabaseConnection, schema: String?) {
        self.connection = connection
        self.schema = schema
    }

    func qualified(_ table: String) -> TableName {
        TableName(schema: schema, name: table)
    }

    /// Starts a table: flushes the previous one's rows.
    package mutating func begin(_ table: String, columns: [String]) async throws {
        try await flush()
        self.table = table
        self.columns = columns
        fullStatement = nil
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
        // A full statement's text is the same every time: rendered once, run again with new values.
        let statement: SQLStatement
        if pendingRows == Self.rowsPerStatement, let full = fullStatement {
            statement = full.rebinding(pending)
        } else {
            statement = insertStatement()
            if pendingRows == Self.rowsPerStatement { fullStatement = statement }
        }
        try await connection.execute(statement)
        pending.removeAll(keepingCapacity: true)
        pendingRows = 0
    }

    /// `INSERT INTO table (columns) VALUES (…), (…)` for the pending rows, every value bound.
    private func insertStatement() -> SQLStatement {
        let rows = stride(from: 0, to: pending.count, by: columns.count).map { start -> SQL in
            "(\(SQL.binds(Array(pending[start..<(start + columns.count)]))))"
        }
        return SQLStatement("INSERT INTO \(qualified(table)) (\(SQL.identifiers(columns))) VALUES \(SQL.joined(rows))", dialect: dialect)
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
        let list = columns.map { column -> SQL in
            switch column {
            case .text(let name): return dialect == .postgres ? "\(identifier: name) COLLATE \"C\"" : "\(identifier: name)"
            case .other(let name): return "\(identifier: name)"
            }
        }
        try await connection.execute("CREATE INDEX \(identifier: name) ON \(qualified(table)) (\(SQL.joined(list)))")
    }

    /// Flushes, lets PostgreSQL's sequences continue after the ids written, and updates the
    /// planners' statistics of `tables`.
    package mutating func finish(analyzing tables: [String]) async throws {
        try await flush()
        if let schema {
            try await PostgresServiceStore.resetSequences(schema: schema, connection)
            for table in tables {
                try await connection.execute("ANALYZE \(qualified(table))")
            }
        } else {
            try await connection.execute("ANALYZE")
        }
    }
}
