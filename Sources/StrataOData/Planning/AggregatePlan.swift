import StrataCore
import StrataSQL

/// A read with `$apply`, planned: one statement whose innermost SELECT groups the entities (GROUP BY)
/// and whose outer levels filter, order and page the groups — one round trip, however many rows
/// are aggregated. Pages are cut by offset (``statement(skip:limit:)``): aggregated rows have no key.
package struct AggregatePlan: Sendable {
    /// The result's columns, in the order of the statement's.
    package var columns: [ApplyColumn]
    /// Every level but the last, as SQL ready to be wrapped.
    var levels: SQL
    /// The last level's parts, to which the page's offset and limit are added.
    var outer: OuterLevel
    /// The last stage's own offset and limit (`skip` and `top` transformations, not `$skip`, `$top`).
    var stageSkip: Int
    var stageTop: Int?

    struct OuterLevel: Sendable {
        var items: [SQL]
        var alias: String
        var conditions: [SQLTerm]
        var order: [OrderTerm]
    }

    /// The statement for the rows from `skip` on (after the transformations' own), at most `limit`.
    func statement(skip: Int, limit: Int?) -> SQL {
        var top = limit
        if let stageTop { top = min(top ?? Int.max, max(0, stageTop - skip)) }
        return select(skip: stageSkip + skip, limit: top)
    }

    /// The number of rows the transformations produce (`$count=true`), before `$skip` and `$top`.
    func countStatement() -> SQL {
        "SELECT COUNT(*) FROM (\(select(skip: stageSkip, limit: stageTop))) AS \(identifier: "counted")"
    }

    private func select(skip: Int, limit: Int?) -> SQL {
        var sql: SQL = "SELECT \(SQL.joined(outer.items)) FROM (\(levels)) AS \(identifier: outer.alias)"
        if !outer.conditions.isEmpty { sql += " WHERE \(SQLTerm.and(outer.conditions))" }
        sql += Self.orderBy(outer.order)
        sql += Self.limit(limit, offset: skip)
        return sql
    }

    static func orderBy(_ order: [OrderTerm]) -> SQL {
        guard !order.isEmpty else { return "" }
        var sql: SQL = " ORDER BY "
        sql += SQL.joined(order.map { term -> SQL in
            // OData sorts null before every value.
            term.descending ? "\(term.expression) DESC NULLS LAST" : "\(term.expression) ASC NULLS FIRST"
        })
        return sql
    }

    static func limit(_ limit: Int?, offset: Int) -> SQL {
        var sql: SQL = ""
        // SQLite takes OFFSET only after a LIMIT, where -1 means none; PostgreSQL takes either alone.
        if let limit { sql += " LIMIT \(limit)" } else if offset > 0 { sql += " LIMIT \(Int64.max)" }
        if offset > 0 { sql += " OFFSET \(offset)" }
        return sql
    }
}
