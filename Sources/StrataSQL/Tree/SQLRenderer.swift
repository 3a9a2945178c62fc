import StrataCore

/// Renders SQL trees, compiler-checked ``SQL`` and write statements to text for one dialect,
/// handing every value to one ``SQLBinder``. This is the only writer of SQL text in Strata.
package struct SQLRenderer {
    package private(set) var text = ""
    private(set) var binder: SQLBinder
    package var dialect: SQLDialect { binder.dialect }
    package var binds: [ODataValue] { binder.binds }

    package init(dialect: SQLDialect) {
        binder = SQLBinder(dialect: dialect)
    }

    /// Continues a statement whose earlier values `binder` holds (checked client SQL, whose table
    /// sources are rendered here), so PostgreSQL's `$n` stay numbered in one sequence.
    init(continuing binder: SQLBinder) {
        self.binder = binder
    }

    package static func render(_ query: SelectQuery, dialect: SQLDialect) -> SQLStatement {
        var renderer = SQLRenderer(dialect: dialect)
        renderer.append(query)
        return renderer.statement()
    }

    package static func render(_ expression: SQLTerm, dialect: SQLDialect) -> SQLStatement {
        var renderer = SQLRenderer(dialect: dialect)
        renderer.append(expression)
        return renderer.statement()
    }

    /// What has been written, as a statement.
    package func statement() -> SQLStatement {
        SQLStatement(text: text, binds: binder.binds)
    }

    package mutating func append(raw: StaticString) {
        text += raw.description
    }

    package mutating func append(identifier: String) {
        text += dialect.quote(identifier)
    }

    package mutating func append(table: TableName) {
        if let schema = table.schema {
            text += dialect.quote(schema) + "."
        }
        text += dialect.quote(table.name)
    }

    /// A column default as SQLite's catalog holds it (see ``CatalogDefault``), never request input.
    mutating func append(catalogDefault: CatalogDefault) {
        text += catalogDefault.expression
    }

    /// `'text'` with each quote doubled: standard SQL, the same on both databases (PostgreSQL's
    /// `standard_conforming_strings` is on by default since 9.1, so backslashes are plain).
    static func stringLiteral(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'"
    }

    package mutating func bind(_ value: ODataValue) {
        text += binder.placeholder(for: value)
    }

    package mutating func append(_ sql: SQL) {
        for piece in sql.pieces {
            switch piece {
            case .text(let fixed): text += fixed.description
            case .identifier(let name): append(identifier: name)
            case .table(let table): append(table: table)
            case .value(let value): bind(value)
            case .integer(let integer): text += String(integer)
            case .term(let term): append(term)
            case .query(let query): append(query)
            case .list(let parts, let separator):
                for (index, part) in parts.enumerated() {
                    if index > 0 { text += separator.description }
                    append(part)
                }
            case .literal(let name):
                text += Self.stringLiteral(name)
            case .quoted(let inner):
                var nested = SQLRenderer(dialect: dialect)
                nested.append(inner)
                precondition(nested.binds.isEmpty, "SQL written as a string literal cannot hold bound values")
                text += Self.stringLiteral(nested.text)
            }
        }
    }

    package mutating func append(_ query: SelectQuery) {
        text += query.distinct ? "SELECT DISTINCT " : "SELECT "
        for (index, item) in query.items.enumerated() {
            if index > 0 { text += ", " }
            append(item.expression)
            if let alias = item.alias {
                text += " AS "
                append(identifier: alias)
            }
        }
        text += " FROM "
        append(table: query.table)
        text += " AS "
        append(identifier: query.alias)
        for join in query.joins {
            text += " " + join.kind.sql.description + " "
            append(table: join.table)
            text += " AS "
            append(identifier: join.alias)
            text += " ON "
            append(join.on)
        }
        if let predicate = query.predicate {
            text += " WHERE "
            append(predicate)
        }
        for position in 1...max(1, query.groupedItems) where query.groupedItems > 0 {
            text += position == 1 ? " GROUP BY " : ", "
            text += String(position)
        }
        if !query.orderBy.isEmpty {
            text += " ORDER BY "
            for (index, item) in query.orderBy.enumerated() {
                if index > 0 { text += ", " }
                append(item.expression)
                // OData sorts null before every value; both databases are told so explicitly where a
                // null can occur. PostgreSQL's indexes hold ASC NULLS LAST order, so saying NULLS FIRST
                // for a column without nulls would make it sort the whole table instead of reading an index.
                if item.canBeNull {
                    text += item.descending ? " DESC NULLS LAST" : " ASC NULLS FIRST"
                } else {
                    text += item.descending ? " DESC" : " ASC"
                }
            }
        }
        if let limit = query.limit {
            text += " LIMIT \(limit)"
        }
        if let offset = query.offset, offset > 0 {
            if query.limit == nil, dialect == .sqlite { text += " LIMIT -1" }
            text += " OFFSET \(offset)"
        }
    }

    package mutating func append(_ expression: SQLTerm) {
        switch expression {
        case .column(let alias, let name):
            if let alias {
                append(identifier: alias)
                text += "."
            }
            append(identifier: name)
        case .value(let value):
            if value.isNull { text += "NULL" } else { bind(value) }
        case .null:
            text += "NULL"
        case .binary(let op, let lhs, let rhs):
            text += "("
            append(lhs)
            text += " " + op.sql.description + " "
            append(rhs)
            text += ")"
        case .not(let inner):
            text += "(NOT "
            append(inner)
            text += ")"
        case .isNull(let inner, let negated):
            text += "("
            append(inner)
            text += negated ? " IS NOT NULL)" : " IS NULL)"
        case .and(let terms):
            appendJoined(terms, separator: " AND ", empty: "1 = 1")
        case .or(let terms):
            appendJoined(terms, separator: " OR ", empty: "1 = 0")
        case .inList(let inner, let list):
            guard !list.isEmpty else {
                text += "1 = 0"
                return
            }
            text += "("
            append(inner)
            text += " IN ("
            for (index, item) in list.enumerated() {
                if index > 0 { text += ", " }
                append(item)
            }
            text += "))"
        case .exists(let query):
            text += "EXISTS ("
            append(query)
            text += ")"
        case .subquery(let query):
            text += "("
            append(query)
            text += ")"
        case .template(let pieces):
            for piece in pieces {
                switch piece {
                case .text(let fixed): text += fixed.description
                case .expression(let inner): append(inner)
                }
            }
        }
    }

    private mutating func appendJoined(_ terms: [SQLTerm], separator: String, empty: String) {
        guard !terms.isEmpty else {
            text += empty
            return
        }
        if terms.count == 1 {
            append(terms[0])
            return
        }
        text += "("
        for (index, term) in terms.enumerated() {
            if index > 0 { text += separator }
            append(term)
        }
        text += ")"
    }
}
