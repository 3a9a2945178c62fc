import StrataCore

extension SQLCheckedStatement {
    /// Writes the statement as SQL for one database, with every literal and parameter bound.
    ///
    /// The checked statement is lowered into Strata's SQL tree (``SQL`` and ``SQLTerm``) and
    /// rendered by the one ``SQLRenderer`` with the one ``SQLBinder``, as every other statement is.
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
    ///   - dateForms: how the catalog's SQLite date columns store their values where not in
    ///     Strata's own form (see ``SQLEmitter`` `+Dates`).
    package func emit(for dialect: SQLDialect, rowLimit: Int? = nil, dateForms: DateForms = DateForms(),
                      tableSource: SQLTableSourceProvider? = nil) throws(ODataError) -> SQLStatement {
        let emitter = SQLEmitter(statement: self, dialect: dialect, dateForms: dateForms)
        var sql = try emitter.select(tableSource: tableSource)
        if let rowLimit { sql = "SELECT * FROM (\(sql)) AS \"q\" LIMIT \(rowLimit + 1)" }
        // Checked client SQL binds an equal value once on PostgreSQL (see ``SQLBinder``).
        var renderer = SQLRenderer(continuing: SQLBinder(dialect: dialect, reusingEqualValues: true))
        renderer.append(sql)
        return renderer.statement()
    }
}

/// Lowers a checked statement into the SQL tree. The tree is written in text order, so values are
/// bound in the order of their `?` placeholders on SQLite.
struct SQLEmitter {
    let statement: SQLCheckedStatement
    let dialect: SQLDialect
    var dateForms = DateForms()
    var functions: FunctionTable { FunctionTable(dialect: dialect) }

    func select(tableSource: SQLTableSourceProvider?) throws(ODataError) -> SQL {
        var sql: SQL = statement.distinct ? "SELECT DISTINCT " : "SELECT "
        // A string result that `ORDER BY 2` sorts by is made ordinal where it is selected.
        var sortedPositions = Set<Int>()
        for item in statement.orderBy { if case .position(let position) = item.key { sortedPositions.insert(position) } }
        var items: [SQL] = []
        for (index, selection) in statement.selections.enumerated() {
            let term = selectedDate(selection)
                ?? (sortedPositions.contains(index + 1) ? ordinal(selection, root: true) : expression(selection, root: true))
            items.append("\(term) AS \(identifier: "c\(index + 1)")")
        }
        sql += SQL.joined(items)
        for (index, table) in statement.tables.enumerated() {
            let source = try tableSQL(table, tableSource)
            if index == 0 {
                sql += " FROM \(source)"
            } else {
                let join = statement.joins[index - 1]
                let condition = expression(join.condition, root: true)
                sql += join.kind == .inner ? " INNER JOIN \(source) ON \(condition)" : " LEFT JOIN \(source) ON \(condition)"
            }
        }
        if let filter = statement.filter { sql += " WHERE \(expression(filter, root: true))" }
        if !statement.groupBy.isEmpty {
            sql += " GROUP BY \(SQL.joined(statement.groupBy.map { "\(expression($0, root: true))" }))"
        }
        if let having = statement.having { sql += " HAVING \(expression(having, root: true))" }
        if !statement.orderBy.isEmpty {
            var keys: [SQL] = []
            for item in statement.orderBy {
                var key: SQL
                switch item.key {
                case .position(let position):
                    if let sorted = dateSortKey(statement.selections[position - 1]) { key = "\(sorted)" } else { key = "\(position)" }
                case .expression(let e): key = "\(dateSortKey(e) ?? ordinal(e, root: true))"
                }
                key += item.descending ? " DESC" : " ASC"
                switch item.nulls {
                case .first?: key += " NULLS FIRST"
                case .last?: key += " NULLS LAST"
                case nil: break
                }
                keys.append(key)
            }
            sql += " ORDER BY \(SQL.joined(keys))"
        }
        if let limit = statement.limit { sql += " LIMIT \(bind: .int64(limit))" }
        if let offset = statement.offset { sql += " OFFSET \(bind: .int64(offset))" }
        return sql
    }

    private func tableSQL(_ table: SQLTableReference, _ tableSource: SQLTableSourceProvider?) throws(ODataError) -> SQL {
        if let tableSource, let source = try tableSource(table) {
            return "(\(source)) AS \(identifier: table.alias)"
        }
        return "\(TableName(name: table.storedName)) AS \(identifier: table.alias)"
    }

    // MARK: Expressions

    /// An expression's tree; operations are parenthesized unless they stand alone in a clause,
    /// a select item, or a function argument.
    func expression(_ e: SQLTypedExpression, root: Bool = false) -> SQLTerm {
        let term = body(e)
        return root || !Self.isOperation(e) ? term : .template(["(", .expression(term), ")"])
    }

    private static func isLeaf(_ e: SQLTypedExpression) -> Bool {
        switch e.node {
        case .column, .value, .countAll: return true
        default: return false
        }
    }

    private static func isAggregate(_ e: SQLTypedExpression) -> Bool {
        guard case .function(let function, _, _) = e.node else { return false }
        return function.isAggregate
    }

    private static func isOperation(_ e: SQLTypedExpression) -> Bool {
        switch e.node {
        case .column, .value, .caseWhen, .cast, .function, .countAll: return false
        default: return true
        }
    }

    private func body(_ e: SQLTypedExpression) -> SQLTerm {
        // An expression of no known type is NULL by construction (any non-null operand would give it
        // a type): written as the keyword, since PostgreSQL cannot choose a signature for, say,
        // ABS(NULL) or NULL + NULL, and the value is the same.
        // An aggregate is the exception: `SUM(NULL)` is one row where `NULL` is one per row.
        if e.type == nil, !Self.isLeaf(e), !Self.isAggregate(e) { return .null }
        switch e.node {
        case .column(let source, let name):
            if let (column, form) = dateColumn(e) { return form.canonicalText(column) }
            let table = statement.tables[source]
            return .column(alias: table.alias, name: table.storedColumn(name))
        case .value(let value):
            // NULL carries no client data, and an untyped bound NULL defeats PostgreSQL's type inference.
            return value.isNull ? .null : .value(value)
        case .negate(let operand):
            guard e.type?.isIntegral == true else { return .template(["-", .expression(expression(operand))]) }
            // 64-bit and failing on overflow on both databases, as in `arithmetic`.
            return dialect == .sqlite ? .call("strata_neg", [expression(operand, root: true)])
                                      : .template(["(- ", .expression(bigint(operand)), ")"])
        case .not(let operand):
            return .template(["NOT ", .expression(expression(operand))])
        case .and(let terms):
            return Self.joined(terms.map { expression($0) }, " AND ")
        case .or(let terms):
            return Self.joined(terms.map { expression($0) }, " OR ")
        case .concat(let terms):
            // PostgreSQL has no integer || integer, so numbers become text explicitly on both databases.
            return Self.joined(terms.map { term in
                term.type.map(\.isIntegral) == true ? .template(["CAST(", .expression(expression(term, root: true)), " AS TEXT)"])
                                                     : expression(term)
            }, " || ")
        case .arithmetic(let op, let lhs, let rhs):
            return arithmetic(op, lhs, rhs, resultType: e.type)
        case .comparison(let op, let lhs, let rhs):
            if let dated = dateComparison(op, lhs, rhs) { return dated }
            // Equality is the same under every deterministic collation, and may use the column's index as it is.
            guard op != .equal, op != .notEqual, lhs.type == .string || rhs.type == .string else {
                return .template([.expression(expression(lhs)), Self.spelling(op), .expression(expression(rhs))])
            }
            return .template([.expression(ordinal(lhs, asString: true)), Self.spelling(op), .expression(ordinal(rhs, asString: true))])
        case .isNull(let operand, let negated):
            let subject = dateColumn(operand)?.column ?? expression(operand)
            return .template([.expression(subject), negated ? " IS NOT NULL" : " IS NULL"])
        case .inList(let operand, let list, let negated):
            if let dated = dateList(operand, list, negated: negated) { return dated }
            return .template([.expression(expression(operand)), negated ? " NOT IN (" : " IN (",
                              .expression(Self.joined(list.map { expression($0, root: true) }, ", ")), ")"])
        case .between(let operand, let low, let high, let negated):
            if let dated = dateBetween(operand, low, high, negated: negated) { return dated }
            let strings = [operand, low, high].contains { $0.type == .string }
            return .template([.expression(ordinal(operand, asString: strings)), negated ? " NOT BETWEEN " : " BETWEEN ",
                              .expression(ordinal(low, asString: strings)), " AND ", .expression(ordinal(high, asString: strings))])
        case .like(let operand, let pattern, let escape, let negated):
            return like(operand, pattern, escape, negated: negated)
        case .caseWhen(let operand, let whens, let otherwise):
            var pieces: [SQLTemplatePiece] = ["CASE"]
            if let operand { pieces += [" ", .expression(expression(operand, root: true))] }
            for index in stride(from: 0, to: whens.count, by: 2) {
                pieces += [" WHEN ", .expression(expression(whens[index], root: true)),
                           " THEN ", .expression(expression(whens[index + 1], root: true))]
            }
            if let otherwise { pieces += [" ELSE ", .expression(expression(otherwise, root: true))] }
            pieces.append(" END")
            return .template(pieces)
        case .cast(let operand, let target):
            return cast(operand, to: target)
        case .function(let function, let arguments, let distinct):
            return call(function, arguments, distinct: distinct, resultType: e.type)
        case .countAll:
            return .template(["COUNT(*)"])
        }
    }

    /// A string compared or sorted byte by byte, as SQLite does and as OData's `$orderby` sorts:
    /// PostgreSQL needs the C collation for that, whatever the database's own. It also lets an
    /// index declared `COLLATE "C"` serve the query, as it serves `$orderby`.
    /// `root` is as for ``expression(_:root:)``; `asString` treats an operand without a type of its
    /// own as a string (NULL compared with a string).
    func ordinal(_ e: SQLTypedExpression, asString: Bool = false, root: Bool = false) -> SQLTerm {
        guard dialect == .postgres, asString || e.type == .string, !Self.isOrdinal(e) else { return expression(e, root: root) }
        // COLLATE binds tighter than any operator: an operation is parenthesized first.
        return .template(["(", .expression(expression(e)), " COLLATE \"C\")"])
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

    /// Terms written one after another with a separator.
    static func joined(_ terms: [SQLTerm], _ separator: StaticString) -> SQLTerm {
        var pieces: [SQLTemplatePiece] = []
        for (index, term) in terms.enumerated() {
            if index > 0 { pieces.append(.text(separator)) }
            pieces.append(.expression(term))
        }
        return .template(pieces)
    }

    private static func spelling(_ op: SQLComparisonOperator) -> SQLTemplatePiece {
        switch op {
        case .equal: return " = "
        case .notEqual: return " <> "
        case .less: return " < "
        case .lessOrEqual: return " <= "
        case .greater: return " > "
        case .greaterOrEqual: return " >= "
        }
    }

    private static func spelling(_ op: SQLArithmeticOperator) -> SQLTemplatePiece {
        switch op {
        case .add: return " + "
        case .subtract: return " - "
        case .multiply: return " * "
        case .divide: return " / "
        case .remainder: return " % "
        }
    }

    /// Division and remainder by zero give NULL on both databases (PostgreSQL would fail the query).
    /// Two integers divide truncating on both; when the result type has a fraction, SQLite gets a
    /// REAL operand, because a `NUMERIC` column may store a whole value as an integer and SQLite
    /// would then divide as integers where PostgreSQL does not.
    private func arithmetic(_ op: SQLArithmeticOperator, _ lhs: SQLTypedExpression, _ rhs: SQLTypedExpression, resultType: EDMPrimitiveType?) -> SQLTerm {
        // Integer +, -, * and / in 64 bits, an error on overflow, on both databases (``FunctionTable``).
        if resultType?.isIntegral == true, op != .remainder {
            let operation: FunctionTable.IntegerOperation = switch op {
            case .add: .add
            case .subtract: .subtract
            case .multiply: .multiply
            default: .divide
            }
            // Left before right: placeholders are numbered in the order they are written.
            return dialect == .sqlite ? functions.checkedArithmetic(operation, expression(lhs, root: true), expression(rhs, root: true))
                                      : functions.checkedArithmetic(operation, bigint(lhs), bigint(rhs))
        }
        switch op {
        case .divide, .remainder:
            let fractional = resultType.map { !$0.isIntegral } ?? false
            let floating = lhs.type == .double || lhs.type == .single
            let left: SQLTerm = op == .divide && fractional && !floating && dialect == .sqlite
                ? .template(["CAST(", .expression(expression(lhs, root: true)), " AS REAL)"]) : expression(lhs)
            return .template([.expression(left), Self.spelling(op), "NULLIF(", .expression(expression(rhs, root: true)), ", 0)"])
        default:
            return .template([.expression(expression(lhs)), Self.spelling(op), .expression(expression(rhs))])
        }
    }

    /// A PostgreSQL integer operand as `bigint`; checked arithmetic and negation are `bigint` already.
    func bigint(_ operand: SQLTypedExpression) -> SQLTerm {
        switch operand.node {
        case .arithmetic(let op, _, _) where op != .remainder && operand.type?.isIntegral == true:
            return expression(operand, root: true)
        case .negate where operand.type?.isIntegral == true:
            return expression(operand, root: true)
        default:
            return .template(["CAST(", .expression(expression(operand, root: true)), " AS bigint)"])
        }
    }

    /// LIKE is case-sensitive on both databases and has no escape character unless ESCAPE names one.
    ///
    /// PostgreSQL's LIKE is case-sensitive but treats `\` as an escape by default, so it gets
    /// `ESCAPE ''`. SQLite's LIKE ignores the case of ASCII letters, so on SQLite both sides go
    /// through ``caseSensitiveForSQLiteLike(_:)`` unless the pattern is a constant without ASCII
    /// letters, where ignoring case changes nothing.
    private func like(_ operand: SQLTypedExpression, _ pattern: SQLTypedExpression, _ escape: SQLTypedExpression?, negated: Bool) -> SQLTerm {
        let keyword: SQLTemplatePiece = negated ? " NOT LIKE " : " LIKE "
        switch dialect {
        case .postgres:
            let escapeTerm = escape.map { expression($0, root: true) } ?? .template(["''"])
            return .template([.expression(expression(operand)), keyword, .expression(expression(pattern)), " ESCAPE ", .expression(escapeTerm)])
        case .sqlite:
            var needsCase = true
            if case .value(.string(let text)) = pattern.node, !text.unicodeScalars.contains(where: \.isASCIILetter) { needsCase = false }
            if case .value(.null) = pattern.node { needsCase = false }
            let subject = needsCase ? Self.caseSensitiveForSQLiteLike(expression(operand, root: true)) : expression(operand)
            let patternTerm = needsCase ? Self.caseSensitiveForSQLiteLike(expression(pattern, root: true)) : expression(pattern)
            var pieces: [SQLTemplatePiece] = [.expression(subject), keyword, .expression(patternTerm)]
            if let escape { pieces += [" ESCAPE ", .expression(expression(escape, root: true))] }
            return .template(pieces)
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
    static func caseSensitiveForSQLiteLike(_ term: SQLTerm) -> SQLTerm {
        var result = term
        for replacement in letterReplacements {
            result = .template(["replace(", .expression(result), .text(replacement)])
        }
        return result
    }

    /// `, 'A', CAST(X'F4908080' AS TEXT))` … for `Z`: the UTF-8 bytes of U+110000 + the letter's offset.
    private static let letterReplacements: [StaticString] = [
        ", 'A', CAST(X'F4908080' AS TEXT))",
        ", 'B', CAST(X'F4908081' AS TEXT))",
        ", 'C', CAST(X'F4908082' AS TEXT))",
        ", 'D', CAST(X'F4908083' AS TEXT))",
        ", 'E', CAST(X'F4908084' AS TEXT))",
        ", 'F', CAST(X'F4908085' AS TEXT))",
        ", 'G', CAST(X'F4908086' AS TEXT))",
        ", 'H', CAST(X'F4908087' AS TEXT))",
        ", 'I', CAST(X'F4908088' AS TEXT))",
        ", 'J', CAST(X'F4908089' AS TEXT))",
        ", 'K', CAST(X'F490808A' AS TEXT))",
        ", 'L', CAST(X'F490808B' AS TEXT))",
        ", 'M', CAST(X'F490808C' AS TEXT))",
        ", 'N', CAST(X'F490808D' AS TEXT))",
        ", 'O', CAST(X'F490808E' AS TEXT))",
        ", 'P', CAST(X'F490808F' AS TEXT))",
        ", 'Q', CAST(X'F4908090' AS TEXT))",
        ", 'R', CAST(X'F4908091' AS TEXT))",
        ", 'S', CAST(X'F4908092' AS TEXT))",
        ", 'T', CAST(X'F4908093' AS TEXT))",
        ", 'U', CAST(X'F4908094' AS TEXT))",
        ", 'V', CAST(X'F4908095' AS TEXT))",
        ", 'W', CAST(X'F4908096' AS TEXT))",
        ", 'X', CAST(X'F4908097' AS TEXT))",
        ", 'Y', CAST(X'F4908098' AS TEXT))",
        ", 'Z', CAST(X'F4908099' AS TEXT))",    ]
}

extension Unicode.Scalar {
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
