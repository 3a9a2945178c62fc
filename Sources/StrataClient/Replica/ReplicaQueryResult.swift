import StrataCore

/// What a read-only SQL query over a replica's tables answered (``Replica/query(_:_:)``).
///
/// ```swift
/// let result = try await replica.query("""
///     SELECT p.lastName, count(*) AS cars FROM Person p JOIN PersonCar pc ON pc.personID = p.personID
///     GROUP BY p.personID HAVING cars >= ? ORDER BY p.lastName
///     """, [.int32(2)])
/// for row in result.rows { print(row[0], row[1]) }
/// ```
public struct ReplicaQueryResult: Sendable, Hashable {
    /// The result's column names, in order.
    public let columns: [String]
    /// Per column, the EDM type of the table column it is (nil for an expression, whose values
    /// come as SQLite has them: `Int64`, `Double`, `String` or `Data`).
    public let types: [EDMPrimitiveType?]
    /// The rows, one value per column.
    public let rows: [[ODataValue]]
    /// The replicated tables the query reads: a ``ReplicaStore`` runs it again when one of them changes.
    public let tables: Set<String>

    /// A row's values by column name (the first column of a name).
    public func values(at row: Int) -> DataTableValues {
        var values: DataTableValues = [:]
        for (name, value) in zip(columns, rows[row]) where values[name] == nil { values[name] = value }
        return values
    }
}
