import StrataCore

/// SQL written in Swift source, checked by the compiler: its literal text is `StaticString` (so it
/// exists when Strata is compiled, never built at run time), and its interpolations accept only
/// what cannot change a statement's meaning:
///
/// ```swift
/// let statement: SQL = "SELECT \(identifier: "role") FROM \(table) WHERE \(identifier: "username") = \(bind: name)"
/// ```
///
/// - `\(identifier: name)`: a catalog name, double-quoted, quotes inside doubled;
/// - `\(table)`: a ``TableName``, schema-qualified where the dialect has schemas;
/// - `\(bind: value)`: a bound value (a placeholder in the text);
/// - `\(integer)`: an integer written as digits (limits, sizes);
/// - `\(term)`, `\(query)`, `\(sql)`: a sub-tree (``SQLTerm``, ``SelectQuery``, or another `SQL`).
///
/// There is no interpolation for `String`: `"… \(userInput)"` does not compile. ``SQLStatement``
/// renders it for a dialect (placeholders `?` or `$n`).
package struct SQL: Sendable, ExpressibleByStringInterpolation {
    package enum Piece: Sendable {
        case text(StaticString)
        case identifier(String)
        case table(TableName)
        case value(ODataValue)
        case integer(Int64)
        case term(SQLTerm)
        case query(SelectQuery)
        case list([SQL], separator: StaticString)
        /// A catalog name written as a string literal (DDL only, see ``StringInterpolation/appendInterpolation(literal:)``).
        case literal(String)
        /// SQL written as a string literal: the body of a PostgreSQL function.
        case quoted(SQL)
    }

    package private(set) var pieces: [Piece]

    package init(stringLiteral value: StaticString) {
        pieces = [.text(value)]
    }

    package init(stringInterpolation: StringInterpolation) {
        pieces = stringInterpolation.pieces
    }

    /// Several pieces of SQL written one after the other with a separator: column lists, `VALUES` rows.
    package static func joined(_ parts: [SQL], separator: StaticString = ", ") -> SQL {
        var interpolation = StringInterpolation(literalCapacity: 0, interpolationCount: 1)
        interpolation.pieces.append(.list(parts, separator: separator))
        return SQL(stringInterpolation: interpolation)
    }

    /// Appends more SQL: clauses added when a condition holds.
    package static func += (lhs: inout SQL, rhs: SQL) {
        lhs.pieces += rhs.pieces
    }

    /// Identifiers separated by commas: `"a", "b", "c"`.
    package static func identifiers(_ names: [String]) -> SQL {
        joined(names.map { "\(identifier: $0)" })
    }

    /// Bound values separated by commas: `?, ?, ?`.
    package static func binds(_ values: [ODataValue]) -> SQL {
        joined(values.map { "\(bind: $0)" })
    }

    package struct StringInterpolation: StringInterpolationProtocol, Sendable {
        package var pieces: [Piece] = []

        package init(literalCapacity: Int, interpolationCount: Int) {
            pieces.reserveCapacity(2 * interpolationCount + 1)
        }

        package mutating func appendLiteral(_ literal: StaticString) {
            if literal.utf8CodeUnitCount > 0 { pieces.append(.text(literal)) }
        }

        package mutating func appendInterpolation(identifier: String) {
            pieces.append(.identifier(identifier))
        }

        package mutating func appendInterpolation(_ table: TableName) {
            pieces.append(.table(table))
        }

        package mutating func appendInterpolation(bind value: ODataValue) {
            pieces.append(.value(value))
        }

        package mutating func appendInterpolation<Integer: BinaryInteger>(_ integer: Integer) {
            pieces.append(.integer(Int64(integer)))
        }

        package mutating func appendInterpolation(_ term: SQLTerm) {
            pieces.append(.term(term))
        }

        package mutating func appendInterpolation(_ query: SelectQuery) {
            pieces.append(.query(query))
        }

        package mutating func appendInterpolation(_ sql: SQL) {
            pieces.append(contentsOf: sql.pieces)
        }

        /// A catalog name as a string literal (`'Car'`, quotes inside doubled), for the DDL of
        /// triggers and functions, whose text is stored by the database and cannot take binds.
        /// Only names from the catalog or the model go here, never request input.
        package mutating func appendInterpolation(literal name: String) {
            pieces.append(.literal(name))
        }

        /// SQL rendered and then written as one string literal: the body of a PostgreSQL function
        /// (`AS '…'`). The inner SQL must have no bound values (a function body cannot take binds).
        package mutating func appendInterpolation(quoted sql: SQL) {
            pieces.append(.quoted(sql))
        }
    }
}
