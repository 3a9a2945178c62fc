import StrataCore

/// `INSERT INTO table (columns) VALUES (binds) RETURNING columns`, or `DEFAULT VALUES` when the
/// body names no column. Column names come from the catalog; every value is bound.
package struct InsertStatement: Sendable {
    package init(table: TableName, values: [(column: String, value: ODataValue)], returning: [String]) {
        self.table = table
        self.values = values
        self.returning = returning
    }

    package var table: TableName
    package var values: [(column: String, value: ODataValue)]
    /// The columns read back from the stored row, in order.
    package var returning: [String]
    /// How some of them are read, when not as they are (a date column in another form than
    /// Strata's, see ``DateStorageForm/read(_:)``).
    package var reads: [String: SQLTerm] = [:]
}

/// The new value of one column in an UPDATE.
package enum AssignedValue: Sendable {
    case value(ODataValue)
    /// The column's default: `DEFAULT` on PostgreSQL. SQLite has no `DEFAULT` in UPDATE, so its
    /// catalog's default expression is used instead (see ``ColumnDefaults``).
    case databaseDefault(CatalogDefault?)
}

/// A column default expression as SQLite's catalog stores it (`pragma_table_info.dflt_value`).
/// It is text the schema's author wrote and SQLite accepted as a constant expression when the table
/// was created, never request input, so it is as trusted as the catalog's identifiers.
package struct CatalogDefault: Sendable {
    package init(expression: String) {
        self.expression = expression
    }

    package let expression: String
}

/// `UPDATE table SET … WHERE key RETURNING columns`.
package struct UpdateStatement: Sendable {
    package init(table: TableName, assignments: [(column: String, value: AssignedValue)], key: [(column: String, value: ODataValue)], returning: [String]) {
        self.table = table
        self.assignments = assignments
        self.key = key
        self.returning = returning
    }

    package var table: TableName
    package var assignments: [(column: String, value: AssignedValue)]
    /// Key column equalities naming the one row to change.
    package var key: [(column: String, value: ODataValue)]
    /// The condition naming the row, when plain equalities would not find it (a date key in
    /// another form than Strata's, see ``DateStorageForm/condition(_:_:_:)``); replaces `key`.
    package var keyCondition: SQLTerm?
    package var returning: [String]
    /// As ``InsertStatement/reads``.
    package var reads: [String: SQLTerm] = [:]
}

/// `DELETE FROM table WHERE key`.
package struct DeleteStatement: Sendable {
    package init(table: TableName, key: [(column: String, value: ODataValue)]) {
        self.table = table
        self.key = key
    }

    package var table: TableName
    package var key: [(column: String, value: ODataValue)]
    /// As ``UpdateStatement/keyCondition``.
    package var keyCondition: SQLTerm?
}

extension SQLRenderer {
    package static func render(_ insert: InsertStatement, dialect: SQLDialect) -> SQLStatement {
        var renderer = SQLRenderer(dialect: dialect)
        renderer.append(raw: "INSERT INTO ")
        renderer.append(table: insert.table)
        if insert.values.isEmpty {
            renderer.append(raw: " DEFAULT VALUES")
        } else {
            renderer.append(raw: " (")
            for (index, item) in insert.values.enumerated() {
                if index > 0 { renderer.append(raw: ", ") }
                renderer.append(identifier: item.column)
            }
            renderer.append(raw: ") VALUES (")
            for (index, item) in insert.values.enumerated() {
                if index > 0 { renderer.append(raw: ", ") }
                renderer.appendValue(item.value)
            }
            renderer.append(raw: ")")
        }
        renderer.appendReturning(insert.returning, reads: insert.reads)
        return renderer.statement()
    }

    package static func render(_ update: UpdateStatement, dialect: SQLDialect) -> SQLStatement {
        var renderer = SQLRenderer(dialect: dialect)
        renderer.append(raw: "UPDATE ")
        renderer.append(table: update.table)
        renderer.append(raw: " SET ")
        for (index, item) in update.assignments.enumerated() {
            if index > 0 { renderer.append(raw: ", ") }
            renderer.append(identifier: item.column)
            renderer.append(raw: " = ")
            switch item.value {
            case .value(let value):
                renderer.appendValue(value)
            case .databaseDefault(let catalogDefault):
                if dialect == .sqlite {
                    renderer.appendCatalogDefault(catalogDefault)
                } else {
                    renderer.append(raw: "DEFAULT")
                }
            }
        }
        renderer.appendKey(update.key, condition: update.keyCondition)
        renderer.appendReturning(update.returning, reads: update.reads)
        return renderer.statement()
    }

    package static func render(_ delete: DeleteStatement, dialect: SQLDialect) -> SQLStatement {
        var renderer = SQLRenderer(dialect: dialect)
        renderer.append(raw: "DELETE FROM ")
        renderer.append(table: delete.table)
        renderer.appendKey(delete.key, condition: delete.keyCondition)
        return renderer.statement()
    }

    /// A SELECT that also locks the target row until the transaction ends. SQLite needs no row
    /// lock: its single writer connection runs `BEGIN IMMEDIATE`, so no other write can interleave.
    package static func renderLocking(_ query: SelectQuery, dialect: SQLDialect) -> SQLStatement {
        var renderer = SQLRenderer(dialect: dialect)
        renderer.append(query)
        if dialect == .postgres {
            renderer.append(raw: " FOR UPDATE OF ")
            renderer.append(identifier: query.alias)
        }
        return renderer.statement()
    }

    /// NULL as the keyword (PostgreSQL cannot infer the type of an untyped null parameter in every
    /// position); anything else bound.
    private mutating func appendValue(_ value: ODataValue) {
        if value.isNull {
            append(raw: "NULL")
        } else {
            bind(value)
        }
    }

    private mutating func appendCatalogDefault(_ catalogDefault: CatalogDefault?) {
        guard let catalogDefault else {
            append(raw: "NULL")
            return
        }
        append(raw: "(")
        append(catalogDefault: catalogDefault)
        append(raw: ")")
    }

    private mutating func appendKey(_ key: [(column: String, value: ODataValue)], condition: SQLTerm?) {
        append(raw: " WHERE ")
        if let condition {
            append(condition)
            return
        }
        for (index, item) in key.enumerated() {
            if index > 0 { append(raw: " AND ") }
            append(identifier: item.column)
            append(raw: " = ")
            bind(item.value)
        }
    }

    private mutating func appendReturning(_ columns: [String], reads: [String: SQLTerm]) {
        guard !columns.isEmpty else { return }
        append(raw: " RETURNING ")
        for (index, column) in columns.enumerated() {
            if index > 0 { append(raw: ", ") }
            if let read = reads[column] { append(read) } else { append(identifier: column) }
        }
    }
}
