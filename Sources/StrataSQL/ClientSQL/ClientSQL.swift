import StrataCore

/// Strata's SQL dialect for clients: the queries a data-table client may send to `POST /{service}/$sql`.
///
/// Client SQL is never passed to a database. It is parsed into Strata's own tree (``SQLParser``),
/// checked against the service's catalog, the caller's read rights and the request's parameters
/// (``SQLChecker``), and written anew for SQLite or PostgreSQL with every value bound
/// (``SQLCheckedStatement/emit(for:tableSource:)``). Anything outside the dialect is refused with
/// a 400 whose message names the problem and its line and column.
///
/// ## The dialect
/// One `SELECT [DISTINCT]` with expressions and aliases, `*` and `t.*`; `FROM` a catalog table with
/// any number of `[INNER] JOIN` and `LEFT [OUTER] JOIN … ON`; `WHERE`, `GROUP BY`, `HAVING`,
/// `ORDER BY … [ASC|DESC] [NULLS FIRST|LAST]`, `LIMIT n [OFFSET m]`; at most one trailing `;`.
/// Expressions: columns, literals, `:name` parameters, `+ - * / %`, `||`, comparisons, `AND OR NOT`,
/// `IS [NOT] NULL`, `[NOT] IN (…)`, `[NOT] BETWEEN`, `[NOT] LIKE [ESCAPE]`, `CASE`, `CAST`, and the
/// functions of ``SQLFunction``. Keywords ignore case; names follow ``SQLCatalog``'s matching rule.
///
/// Refused: every other statement, several statements, comments (refused, never stripped),
/// subqueries, `UNION`/`INTERSECT`/`EXCEPT`, `WITH`, window functions, schema-qualified names and
/// system catalogs, functions not on the list, `?`/`$1` placeholders, `::` casts, dollar-quoted and
/// `E'…'` strings, characters outside printable ASCII except inside strings and quoted names,
/// NUL and control characters anywhere, and input beyond ``SQLLimits``.
///
/// ## Meaning on both databases
/// The checker and emitter make a query mean the same on SQLite and PostgreSQL: `LIKE` is
/// case-sensitive with no default escape; strings compare and sort byte by byte (PostgreSQL's
/// `<`, `BETWEEN`, `MIN`/`MAX` and `ORDER BY` on strings use the C collation, whatever the
/// column's, as OData's `$orderby` does); integer division truncates and division by zero gives
/// NULL; NULLs sort first ascending and last descending unless `NULLS` says otherwise; aggregated
/// queries follow PostgreSQL's grouping rule; date parts return whole numbers. Remaining
/// differences are in the database's own functions: `LOWER`/`UPPER` change only ASCII letters on
/// SQLite, and `SUBSTR` with a start below 1 or a negative length follows each database.
public enum ClientSQL {
    /// Parses and checks client SQL in one step.
    /// - Parameters:
    ///   - sql: the query text as the client sent it.
    ///   - catalog: the service's tables.
    ///   - parameters: the request's `:name` values.
    ///   - limits: bounds on the query's size.
    ///   - canRead: whether the caller may read a catalog table; a table it may not read is refused with 403.
    public static func check(
        _ sql: String,
        catalog: SQLCatalog,
        parameters: [String: ODataValue] = [:],
        limits: SQLLimits = .default,
        canRead: (String) -> Bool = { _ in true }
    ) throws(ODataError) -> SQLCheckedStatement {
        let statement = try SQLParser.parse(sql, limits: limits)
        return try SQLChecker(catalog: catalog).check(statement, parameters: parameters, canRead: canRead)
    }
}
