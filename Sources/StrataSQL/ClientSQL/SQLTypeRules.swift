import Foundation
import StrataCore

/// How the checker types expressions. One rule set for both databases, strict where SQLite and
/// PostgreSQL would disagree, so a query that checks runs alike on both.
///
/// - Column references have their catalog type; literals have the type their ``ODataValue`` has;
///   parameters the type of the value sent; `NULL` has no type and fits anywhere.
/// - Arithmetic needs numbers. Integer operands give `Int32`, or `Int64` when one is `Int64`;
///   otherwise the wider type wins (`Decimal`, then `Single`, then `Double`). `%` needs integers.
/// - Comparisons, `IN`, `BETWEEN`, `CASE` results, `COALESCE` and `NULLIF` need operands of one type
///   or all numeric. A string literal or parameter next to a date, time or guid is converted to that
///   type when the query is checked (`createDate >= '2009-01-01'`), and refused if it does not parse.
/// - `||` takes strings and integers and gives `Edm.String`; `AND`, `OR`, `NOT`, `WHERE`, `ON`,
///   `HAVING` and `WHEN` take `Edm.Boolean`.
/// - A result column whose type is unknown (only `NULL`) is reported as `Edm.String`.
enum SQLTypeRules {
    /// The outcome of a typing rule: a type (nil when only `NULL` is known) or no type at all.
    enum Outcome: Equatable {
        case type(EDMPrimitiveType?)
        case mismatch
    }

    /// The result type of `+ - * / %`.
    static func arithmetic(_ op: SQLArithmeticOperator, _ lhs: EDMPrimitiveType?, _ rhs: EDMPrimitiveType?) -> Outcome {
        if let lhs, !lhs.isNumeric { return .mismatch }
        if let rhs, !rhs.isNumeric { return .mismatch }
        if op == .remainder, lhs.map({ !$0.isIntegral }) ?? false || rhs.map({ !$0.isIntegral }) ?? false { return .mismatch }
        switch (lhs, rhs) {
        case (nil, nil): return .type(nil)
        case (let t?, nil), (nil, let t?): return .type(widenedInteger(t))
        case (let l?, let r?):
            if l.isIntegral && r.isIntegral { return .type(l == .int64 || r == .int64 ? .int64 : .int32) }
            return .type(EDMPrimitiveType.promoted(l, r))
        }
    }

    /// Integer arithmetic is done at least in 32 bits on both databases.
    private static func widenedInteger(_ type: EDMPrimitiveType) -> EDMPrimitiveType {
        type.isIntegral && type != .int64 ? .int32 : type
    }

    /// The one type that values of these types share; `.type(nil)` when all are unknown.
    static func common(_ types: [EDMPrimitiveType?]) -> Outcome {
        var result: EDMPrimitiveType?
        for case let type? in types {
            guard let current = result else {
                result = type
                continue
            }
            if current == type { continue }
            guard let promoted = EDMPrimitiveType.promoted(current, type) else { return .mismatch }
            result = promoted
        }
        return .type(result)
    }

    /// Types that `MIN`, `MAX` and `ORDER BY` order the same way on both databases.
    static func isOrderable(_ type: EDMPrimitiveType) -> Bool {
        type.isNumeric || type == .string || type == .dateTime || type == .dateTimeOffset || type == .time
    }

    /// Types a string constant is converted to when it meets them.
    static func convertsStrings(to type: EDMPrimitiveType) -> Bool {
        type == .dateTime || type == .dateTimeOffset || type == .time || type == .guid
    }

    /// Parses a string constant as a value of `type`, or nil when it is not one.
    static func convert(_ text: String, to type: EDMPrimitiveType) -> ODataValue? {
        switch type {
        case .dateTime: return ODataDateTime.parse(text).map(ODataValue.dateTime)
        case .dateTimeOffset: return ODataDateTimeOffset.parse(text).map(ODataValue.dateTimeOffset)
        case .time: return ODataTime.parse(text).map(ODataValue.time)
        case .guid: return UUID(uuidString: text).map(ODataValue.guid)
        default: return nil
        }
    }

    /// `Edm.Int32` for messages; `NULL` for an unknown type.
    static func name(_ type: EDMPrimitiveType?) -> String {
        type?.qualifiedName ?? "NULL"
    }
}
