import StrataCore

/// Whether a bound expression can be null for some row. The translator needs it because OData's
/// logic has two values where SQL's has three: `ne`, `not` and comparisons of two nullable operands
/// must not let SQL's NULL leak through as "unknown".
enum Nullability {
    static func canBeNull(_ expression: BoundExpression) -> Bool {
        switch expression.node {
        case .literal(let value):
            return value.isNull
        case .property(let path):
            // A row reached through navigation may be missing, which reads as null.
            return !path.navigation.isEmpty || path.property.isNullable
        case .binary(let op, let lhs, let rhs, _):
            switch op {
            case .and, .or, .eq, .ne, .gt, .ge, .lt, .le:
                // Comparisons and connectives are translated to never yield null where it matters.
                return false
            case .div, .mod:
                // Division by zero yields null (on both databases) rather than an error.
                return true
            case .add, .sub, .mul:
                return canBeNull(lhs) || canBeNull(rhs)
            }
        case .unary(let op, let operand):
            return op == .not ? false : canBeNull(operand)
        case .call(_, let arguments):
            // Every canonical function propagates null and yields a value otherwise.
            return arguments.contains(where: canBeNull)
        case .cast(let operand):
            return canBeNull(operand)
        case .lambda, .count:
            // EXISTS and COUNT(*) are never null.
            return false
        }
    }
}
