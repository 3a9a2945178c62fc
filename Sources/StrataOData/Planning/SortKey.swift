import StrataCore
import StrataSQL

/// One expression a collection is ordered by. A collection's sort keys always end with the entity
/// key, so the order is total and a position in it can be named by the values of its sort keys.
package struct SortKey: Sendable {
    var expression: SQLTerm
    var descending: Bool
    /// The EDM type of the expression's values, used to read continuation tokens back.
    var type: EDMPrimitiveType?
    /// False when no row can have a null here (keys, NOT NULL columns of the row itself).
    var canBeNull: Bool = true

    var orderTerm: OrderTerm { OrderTerm(expression: expression, descending: descending, canBeNull: canBeNull) }
}

/// Keyset continuation: the condition "comes after this row" for a list of sort keys, used between
/// the chunks of a streamed collection and for `$skiptoken` pages. Unlike OFFSET it costs the same
/// on every page and stays correct while rows are inserted or deleted.
enum KeysetContinuation {
    /// Nulls sort first ascending and last descending (OData's rule, rendered as NULLS FIRST/LAST).
    static func after(_ values: [ODataValue], keys: [SortKey]) -> SQLTerm {
        var alternatives: [SQLTerm] = []
        for index in keys.indices {
            var terms: [SQLTerm] = []
            for earlier in 0..<index {
                terms.append(equal(keys[earlier].expression, values[earlier]))
            }
            guard let beyond = beyond(keys[index], values[index]) else { continue }
            terms.append(beyond)
            alternatives.append(.and(terms))
        }
        return .or(alternatives)
    }

    private static func equal(_ expression: SQLTerm, _ value: ODataValue) -> SQLTerm {
        value.isNull ? .isNull(expression, negated: false) : .equals(expression, .value(value))
    }

    /// Rows strictly after `value` in this key's direction; nil when none can be (after the last null descending).
    private static func beyond(_ key: SortKey, _ value: ODataValue) -> SQLTerm? {
        switch (key.descending, value.isNull) {
        case (false, true): return .isNull(key.expression, negated: true)
        case (false, false): return .binary(.greater, key.expression, .value(value))
        case (true, true): return nil
        case (true, false):
            let less = SQLTerm.binary(.less, key.expression, .value(value))
            return key.canBeNull ? .or([less, .isNull(key.expression, negated: false)]) : less
        }
    }

    /// The `$skiptoken` naming a position: the sort values as comma-separated OData literals, as WCF wrote them.
    static func token(_ values: [ODataValue]) -> String {
        values.map(ODataLiteral.format).joined(separator: ",")
    }

    /// Reads a `$skiptoken` back into values of the sort keys' types.
    static func values(fromToken token: String, keys: [SortKey]) throws(ODataError) -> [ODataValue] {
        let invalid = ODataError.badRequest("The $skiptoken '\(token.prefix(100))' does not belong to this query; follow the __next link as given.")
        guard let parts = try? KeyPredicate.splitTopLevel(Substring(token), on: ",") else { throw invalid }
        guard parts.count == keys.count else { throw invalid }
        var values: [ODataValue] = []
        for (part, key) in zip(parts, keys) {
            guard let literal = try? ODataLiteral.parse(part) else { throw invalid }
            if let type = key.type {
                guard let converted = literal.converted(to: type) else { throw invalid }
                values.append(converted)
            } else {
                values.append(literal)
            }
        }
        return values
    }
}
