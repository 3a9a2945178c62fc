import StrataCore

/// Keyword sets of the dialect and the explanations given when a client uses SQL outside it.
enum SQLKeywords {
    /// Words that cannot be unquoted names: they structure a query (or would, in SQL the dialect
    /// refuses), so taking them as a name or alias would hide a mistake or an attack.
    static let reserved: Set<String> = [
        "ALL", "AND", "ANY", "AS", "ASC", "BETWEEN", "BY", "CASE", "CAST", "COLLATE", "CROSS", "DESC",
        "DISTINCT", "ELSE", "END", "ESCAPE", "EXCEPT", "EXISTS", "FALSE", "FETCH", "FILTER", "FOR", "FROM",
        "FULL", "GLOB", "GROUP", "HAVING", "ILIKE", "IN", "INNER", "INTERSECT", "INTO", "IS", "JOIN", "LEFT",
        "LIKE", "LIMIT", "MATCH", "NATURAL", "NOT", "NULL", "OFFSET", "ON", "OR", "ORDER", "OUTER", "OVER",
        "REGEXP", "RETURNING", "RIGHT", "SELECT", "SIMILAR", "SOME", "THEN", "TRUE", "UNION", "USING",
        "WHEN", "WHERE", "WINDOW", "WITH",
    ]

    /// Words that begin statements other than `SELECT`. Refused where a statement could start and
    /// never taken as an alias, so `SELECT … FROM t DROP TABLE t` cannot read as a table alias.
    static let statements: Set<String> = [
        "ALTER", "ANALYZE", "ATTACH", "BEGIN", "CALL", "CHECKPOINT", "CLOSE", "CLUSTER", "COMMENT", "COMMIT",
        "COPY", "CREATE", "DEALLOCATE", "DECLARE", "DELETE", "DETACH", "DISCARD", "DO", "DROP", "END", "EXEC",
        "EXECUTE", "EXPLAIN", "GRANT", "IMPORT", "INSERT", "LISTEN", "LOAD", "LOCK", "MERGE", "MOVE", "NOTIFY",
        "PRAGMA", "PREPARE", "REASSIGN", "REFRESH", "REINDEX", "RELEASE", "RENAME", "REPLACE", "RESET",
        "REVOKE", "ROLLBACK", "SAVEPOINT", "SECURITY", "SET", "SHOW", "START", "TABLE", "TRUNCATE", "UNLISTEN",
        "UPDATE", "UPSERT", "USE", "VACUUM", "VALUES",
    ]

    /// Whether an unquoted word may serve as an alias.
    static func canBeAlias(_ upper: String) -> Bool {
        !reserved.contains(upper) && !statements.contains(upper)
    }

    /// The refusal for a word that is SQL but not the dialect, where it appears in place of a clause
    /// or expression; nil when the word has no special meaning.
    static func refusal(for token: SQLToken) -> ODataError? {
        let at = token.location
        switch token.upper {
        case "UNION", "INTERSECT", "EXCEPT":
            return SQLRefusal.notAllowed("\(token.upper) is not allowed", at: at, hint: "send one SELECT; combine results in the client or use OR in WHERE")
        case "WITH":
            return SQLRefusal.notAllowed("WITH (common table expressions) is not allowed", at: at, hint: "send one SELECT over catalog tables")
        case "OVER", "WINDOW", "PARTITION":
            return SQLRefusal.notAllowed("window functions (\(token.upper)) are not allowed", at: at, hint: "use GROUP BY with aggregates")
        case "FILTER", "WITHIN":
            return SQLRefusal.notAllowed("\(token.upper) clauses on aggregates are not allowed", at: at, hint: "use CASE inside the aggregate")
        case "EXISTS", "ANY", "SOME", "ALL":
            return SQLRefusal.notAllowed("subqueries (\(token.upper)) are not allowed", at: at, hint: "use JOIN … ON")
        case "INTO":
            return SQLRefusal.notAllowed("SELECT INTO is not allowed", at: at, hint: "queries only read")
        case "FOR":
            return SQLRefusal.notAllowed("locking clauses (FOR UPDATE, FOR SHARE) are not allowed", at: at, hint: "queries only read")
        case "RETURNING":
            return SQLRefusal.notAllowed("RETURNING is not allowed", at: at, hint: "queries only read")
        case "FETCH":
            return SQLRefusal.notAllowed("FETCH FIRST is not allowed", at: at, hint: "write LIMIT n [OFFSET m]")
        case "COLLATE":
            return SQLRefusal.notAllowed("COLLATE is not allowed", at: at, hint: "strings compare case-sensitively; use LOWER or UPPER to ignore case")
        case "ILIKE", "GLOB", "REGEXP", "SIMILAR", "MATCH":
            return SQLRefusal.notAllowed("\(token.upper) is not allowed", at: at, hint: "use LIKE, with LOWER or UPPER to ignore case")
        case "RIGHT", "FULL", "CROSS", "NATURAL":
            return SQLRefusal.notAllowed("\(token.upper) JOIN is not allowed", at: at, hint: "use [INNER] JOIN or LEFT [OUTER] JOIN with ON")
        case "USING":
            return SQLRefusal.notAllowed("JOIN … USING is not allowed", at: at, hint: "write the condition with ON")
        default:
            break
        }
        if statements.contains(token.upper), token.upper != "REPLACE", token.upper != "END" {
            return statementRefusal(token)
        }
        return nil
    }

    /// The refusal for a statement keyword: DML, DDL and session commands are never run.
    static func statementRefusal(_ token: SQLToken) -> ODataError {
        SQLRefusal.notAllowed("\(token.upper) is not allowed", at: token.location,
                              hint: "only one SELECT query can be sent; data changes go through the OData endpoints or $changes")
    }
}
