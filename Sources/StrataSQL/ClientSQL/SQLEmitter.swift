import StrataCore

extension SQLCheckedStatement {
    /// Writes the statement as SQL for one database, with every literal and parameter bound.
    ///
    /// Identifiers are the catalog's names, double-quoted; tables are aliased `t1`, `t2`, … and
    /// result columns `c1`, `c2`, …, so no text the client wrote appears in the SQL. Every operation
    /// is parenthesized, so both databases evaluate the tree the parser built whatever their
    /// precedence rules. ``SQLResultColumn/name`` gives each result column's name.
    ///
    /// - Parameters:
    ///   - rowLimit: when set, the statement is wrapped to return at most this many rows plus one,
    ///     which tells a result that is too large from one that just fits.
    ///   - tableSource: the server's replacement for each table reference, typically a `SELECT`
    ///     with the caller's row filter; nil reads the catalog tables directly.
    package func emit(for dialect: SQLDialect, rowLimit: Int? = nil, tableSource: SQLTableSourceProvider? = nil) throws(ODataError) -> SQLStatement {
        var emitter = SQLEmitter(statement: self, binder: SQLBinder(dialect: dialect, reusingEqualValues: true))
        var sql = try emitter.statementSQL(tableSource: tableSource)
        if let rowLimit { sql = "SELECT * FROM (" + sql + ") AS \"q\" LIMIT " + String(rowLimit + 1) }
        return SQLStatement(text: sql, binds: emitter.binder.binds)
    }
}

/// Writes a checked statement. Text is produced strictly left to right, so the order in which
/// values are bound is the order of their `?` placeholders on SQLite.
struct SQLEmitter {
    let statement: SQLCheckedStatement
    var binder: SQLBinder
    var dialect: SQLDialect { binder.dialect }

    mutating func statementSQL(tableSource: SQLTableSourceProvider?) throws(ODataError) -> String {
        var sql = statement.distinct ? "SELECT DISTINCT " : "SELECT "
        var items: [String] = []
        // A string result that `ORDER BY 2` sorts by is made ordinal where it is selected.
        var sortedPositions = Set<Int>()
        for item in statement.orderBy { if case .position(let position) = item.key { sortedPositions.insert(position) } }
        for (index, selection) in statement.selections.enumerated() {
            let sql = sortedPositions.contains(index + 1) ? ordinal(selection, root: true) : expression(selection, root: true)
            items.append(sql + " AS " + dialect.quote("c\(index + 1)"))
        }
        sql += items.joined(separator: ", ")
        for (index, table) in statement.tables.enumerated() {
            let source = try tableSQL(table, tableSource)
            if index == 0 {
                sql += " FROM " + source
            } else {
                let join = statement.joins[index - 1]
                sql += " \(join.kind.rawValue) \(source) ON " + expression(join.condition, root: true)
            }
        }
        if let filter = statement.filter { sql += " WHERE " + expression(filter, root: true) }
        if !statement.groupBy.isEmpty {
            var keys: [String] = []
            for key in statement.groupBy { keys.append(expression(key, root: true)) }
            sql += " GROUP BY " + keys.joined(separator: ", ")
        }
        if let having = statement.having { sql += " HAVING " + expression(having, root: true) }
        if !statement.orderBy.isEmpty {
            var keys: [String] = []
            for item in statement.orderBy {
                let key: String
                switch item.key {
                case .position(let position): key = String(position)
                case .expression(let e): key = ordinal(e, root: true)
                }
                keys.append(key + (item.descending ? " DESC" : " ASC") + (item.nulls.map { " " + $0.rawValue } ?? ""))
            }
            sql += " ORDER BY " + keys.joined(separator: ", ")
        }
        if let limit = statement.limit { sql += " LIMIT " + binder.placeholder(for: .int64(limit)) }
        if let offset = statement.offset { sql += " OFFSET " + binder.placeholder(for: .int64(offset)) }
        return sql
    }

    private mutating func tableSQL(_ table: SQLTableReference, _ tableSource: SQLTableSourceProvider?) throws(ODataError) -> String {
        let alias = dialect.quote(table.alias)
        if let tableSource, let source = try tableSource(table) {
            var renderer = SQLRenderer(continuing: binder)
            renderer.append(source)
            binder = renderer.binder
            return "(\(renderer.text)) AS \(alias)"
        }
        return dialect.quote(table.table) + " AS " + alias
    }

    // MARK: Expressions

    /// An expression's SQL; operations are parenthesized unless they stand alone in a clause,
    /// a select item, or a function argument.
    mutating func expression(_ e: SQLTypedExpression, root: Bool = false) -> String {
        let text = body(e)
        return root || !Self.isOperation(e) ? text : "(" + text + ")"
    }

    private static func isLeaf(_ e: SQLTypedExpression) -> Bool {
        switch e.node {
        case .column, .value, .countAll: return true
        default: return false
        }
    }

    private static func isOperation(_ e: SQLTypedExpression) -> Bool {
        switch e.node {
        case .column, .value, .caseWhen, .cast, .function, .countAll: return false
        default: return true
        }
    }

    private mutating func body(_ e: SQLTypedExpression) -> String {
        // An expression of no known type is NULL by construction (any non-null operand would give it
        // a type): written as the keyword, since PostgreSQL cannot choose a signature for, say,
        // ABS(NULL) or NULL + NULL, and the value is the same.
        if e.type == nil, !Self.isLeaf(e) { return "NULL" }
        switch e.node {
        case .column(let source, let name):
            return dialect.quote(statement.tables[source].alias) + "." + dialect.quote(name)
        case .value(let value):
            // NULL carries no client data, and an untyped bound NULL defeats PostgreSQL's type inference.
            return value.isNull ? "NULL" : binder.placeholder(for: value)
        case .negate(let operand):
            guard e.type?.isIntegral == true else { return "-" + expression(operand) }
            // 64-bit and failing on overflow on both databases, as in `arithmetic`.
            return dialect == .sqlite ? "strata_neg(\(expression(operand, root: true)))" : "(- \(bigint(operand)))"
        case .not(let operand):
            return "NOT " + expression(operand)
        case .and(let terms):
            return joined(terms, " AND ")
        case .or(let terms):
            return joined(terms, " OR ")
        case .concat(let terms):
            var parts: [String] = []
            // PostgreSQL has no integer || integer, so numbers become text explicitly on both databases.
            for term in terms { parts.append(term.type.map(\.isIntegral) == true ? "CAST(\(expression(term, root: true)) AS TEXT)" : expression(term)) }
            return parts.joined(separator: " || ")
        case .arithmetic(let op, let lhs, let rhs):
            return arithmetic(op, lhs, rhs, resultType: e.type)
        case .comparison(let op, let lhs, let rhs):
            // Equality is the same under every deterministic collation, and may use the column's index as it is.
            guard op != .equal, op != .notEqual, lhs.type == .string || rhs.type == .string else {
                return expression(lhs) + " \(op.rawValue) " + expression(rhs)
            }
            return ordinal(lhs, asString: true) + " \(op.rawValue) " + ordinal(rhs, asString: true)
        case .isNull(let operand, let negated):
            return expression(operand) + (negated ? " IS NOT NULL" : " IS NULL")
        case .inList(let operand, let list, let negated):
            let subject = expression(operand)
            var items: [String] = []
            for item in list { items.append(expression(item, root: true)) }
            return subject + (negated ? " NOT IN (" : " IN (") + items.joined(separator: ", ") + ")"
        case .between(let operand, let low, let high, let negated):
            let strings = [operand, low, high].contains { $0.type == .string }
            let subject = ordinal(operand, asString: strings), lowSQL = ordinal(low, asString: strings)
            return subject + (negated ? " NOT BETWEEN " : " BETWEEN ") + lowSQL + " AND " + ordinal(high, asString: strings)
        case .like(let operand, let pattern, let escape, let negated):
            return like(operand, pattern, escape, negated: negated)
        case .caseWhen(let operand, let whens, let otherwise):
            var sql = "CASE"
            if let operand { sql += " " + expression(operand, root: true) }
            for index in stride(from: 0, to: whens.count, by: 2) {
                let condition = expression(whens[index], root: true)
                sql += " WHEN \(condition) THEN " + expression(whens[index + 1], root: true)
            }
            if let otherwise { sql += " ELSE " + expression(otherwise, root: true) }
            return sql + " END"
        case .cast(let operand, let target):
            return cast(operand, to: target)
        case .function(let function, let arguments, let distinct):
            return call(function, arguments, distinct: distinct, resultType: e.type)
        case .countAll:
            return "COUNT(*)"
        }
    }

    /// A string compared or sorted byte by byte, as SQLite does and as OData's `$orderby` sorts:
    /// PostgreSQL needs the C collation for that, whatever the database's own. It also lets an
    /// index declared `COLLATE "C"` serve the query, as it serves `$orderby`.
    /// `root` is as for ``expression(_:root:)``; `asString` treats an operand without a type of its
    /// own as a string (NULL compared with a string).
    mutating func ordinal(_ e: SQLTypedExpression, asString: Bool = false, root: Bool = false) -> String {
        guard dialect == .postgres, asString || e.type == .string, !Self.isOrdinal(e) else { return expression(e, root: root) }
        // COLLATE binds tighter than any operator: an operation is parenthesized first.
        return "(" + expression(e) + " COLLATE \"C\")"
    }

    /// MIN and MAX of strings are emitted ordinal already (``call(_:_:distinct:resultType:)``).
    private static func isOrdinal(_ e: SQLTypedExpression) -> Bool {
        guard case .function(let function, let arguments, _) = e.node else { return false }
        return isStringExtreme(function, arguments)
    }

    /// MIN or MAX of one string: the smallest and largest string are the byte-wise ones, as on SQLite.
    static func isStringExtreme(_ function: SQLFunction, _ arguments: [SQLTypedExpression]) -> Bool {
        (function == .min || function == .max) && arguments.count == 1 && arguments[0].type == .string
    }

    private mutating func joined(_ terms: [SQLTypedExpression], _ separator: String) -> String {
        var parts: [String] = []
        for term in terms { parts.append(expression(term)) }
        return parts.joined(separator: separator)
    }

    /// Division and remainder by zero give NULL on both databases (PostgreSQL would fail the query).
    /// Two integers divide truncating on both; when the result type has a fraction, SQLite gets a
    /// REAL operand, because a `NUMERIC` column may store a whole value as an integer and SQLite
    /// would then divide as integers where PostgreSQL does not.
    private mutating func arithmetic(_ op: SQLArithmeticOperator, _ lhs: SQLTypedExpression, _ rhs: SQLTypedExpression, resultType: EDMPrimitiveType?) -> String {
        // Integer +, -, * and / in 64 bits, an error on overflow, on both databases: SQLite quietly
        // turns an overflowing integer into a float, so the server gives its connections checked
        // functions (`strata_add` …); PostgreSQL's `bigint` arithmetic fails by itself.
        if resultType?.isIntegral == true, op != .remainder {
            if dialect == .sqlite {
                let function = switch op {
                case .add: "strata_add"
                case .subtract: "strata_sub"
                case .multiply: "strata_mul"
                default: "strata_div"
                }
                let left = expression(lhs, root: true)
                let right = op == .divide ? "NULLIF(\(expression(rhs, root: true)), 0)" : expression(rhs, root: true)
                return "\(function)(\(left), \(right))"
            }
            // Left before right: placeholders are numbered in the order they are written.
            let left = bigint(lhs)
            let right = op == .divide ? "NULLIF(\(bigint(rhs)), 0)" : bigint(rhs)
            return "(\(left) \(op.rawValue) \(right))"
        }
        switch op {
        case .divide, .remainder:
            let fractional = resultType.map { !$0.isIntegral } ?? false
            let floating = lhs.type == .double || lhs.type == .single
            let left = op == .divide && fractional && !floating && dialect == .sqlite ? "CAST(\(expression(lhs, root: true)) AS REAL)" : expression(lhs)
            return left + " \(op.rawValue) NULLIF(\(expression(rhs, root: true)), 0)"
        default:
            let left = expression(lhs)
            return left + " \(op.rawValue) " + expression(rhs)
        }
    }

    /// A PostgreSQL integer operand as `bigint`; checked arithmetic and negation are `bigint` already.
    private mutating func bigint(_ operand: SQLTypedExpression) -> String {
        switch operand.node {
        case .arithmetic(let op, _, _) where op != .remainder && operand.type?.isIntegral == true:
            return expression(operand, root: true)
        case .negate where operand.type?.isIntegral == true:
            return expression(operand, root: true)
        default:
            return "CAST(\(expression(operand, root: true)) AS bigint)"
        }
    }

    /// LIKE is case-sensitive on both databases and has no escape character unless ESCAPE names one.
    ///
    /// PostgreSQL's LIKE is case-sensitive but treats `\` as an escape by default, so it gets
    /// `ESCAPE ''`. SQLite's LIKE ignores the case of ASCII letters, so on SQLite both sides go
    /// through ``caseSensitiveForSQLiteLike(_:)`` unless the pattern is a constant without ASCII
    /// letters, where ignoring case changes nothing.
    private mutating func like(_ operand: SQLTypedExpression, _ pattern: SQLTypedExpression, _ escape: SQLTypedExpression?, negated: Bool) -> String {
        let keyword = negated ? " NOT LIKE " : " LIKE "
        switch dialect {
        case .postgres:
            let sql = expression(operand) + keyword + expression(pattern)
            return sql + " ESCAPE " + (escape.map { expression($0, root: true) } ?? "''")
        case .sqlite:
            var needsCase = true
            if case .value(.string(let text)) = pattern.node, !text.unicodeScalars.contains(where: \.isASCIILetter) { needsCase = false }
            if case .value(.null) = pattern.node { needsCase = false }
            let subject = needsCase ? Self.caseSensitiveForSQLiteLike(expression(operand, root: true)) : expression(operand)
            let patternSQL = needsCase ? Self.caseSensitiveForSQLiteLike(expression(pattern, root: true)) : expression(pattern)
            return subject + keyword + patternSQL + (escape.map { " ESCAPE " + expression($0, root: true) } ?? "")
        }
    }

    /// Wraps SQLite text so that its LIKE compares letters case-sensitively without a PRAGMA or GLOB.
    ///
    /// SQLite's LIKE folds only ASCII letters, and compares every other character exactly. Each
    /// upper-case ASCII letter is replaced, in both subject and pattern, by a code point above
    /// U+10FFFF (`U+110000` for `A` … `U+110019` for `Z`, four UTF-8 bytes built from a blob). Such
    /// code points never occur in valid UTF-8 text, SQLite's LIKE reads them as one character each,
    /// and they do not fold, so `A` only matches `A`, `a` only matches `a`, and `_` still matches
    /// one character. Text that SQLite stores as valid UTF-8 (all text Strata writes) is matched
    /// exactly as PostgreSQL's LIKE matches it.
    static func caseSensitiveForSQLiteLike(_ sql: String) -> String {
        var result = sql
        for (offset, letter) in "ABCDEFGHIJKLMNOPQRSTUVWXYZ".enumerated() {
            let codePoint = 0x110000 + offset
            let bytes = [0xF0 | (codePoint >> 18), 0x80 | ((codePoint >> 12) & 0x3F), 0x80 | ((codePoint >> 6) & 0x3F), 0x80 | (codePoint & 0x3F)]
            let hex = bytes.map { String($0, radix: 16, uppercase: true) }.joined()
            result = "replace(\(result), '\(letter)', CAST(X'\(hex)' AS TEXT))"
        }
        return result
    }
}

extension Unicode.Scalar {
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
