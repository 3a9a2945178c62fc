import StrataCore
import StrataSQL
import StrataStorage

/// `$filter` and `$orderby` on SQLite date columns whose values are not in Strata's own form
/// (``DateStorageForm``): a literal is written the way the column stores dates, so that the
/// comparison stays one of stored values and an index on the column serves it; other comparisons
/// and computations go through SQLite's date functions. Columns in Strata's form take the
/// translator's usual path.
extension FilterTranslator {
    /// The column a property path names and its date form; nil when it has none.
    func dateColumn(_ expression: BoundExpression) -> (column: SQLTerm, form: DateStorageForm)? {
        guard dialect == .sqlite, !dateForms.isEmpty, expression.type == .dateTime || expression.type == .dateTimeOffset,
              case .property(let path) = expression.node else { return nil }
        // An entity type's name is its set's; the forms go by the database's names.
        let owner = path.navigation.last?.targetType.name ?? rootType
        guard let form = dateForms[table: names.table(owner), column: names.column(path.property.name, of: owner)] else { return nil }
        return (scalar(expression), form)
    }

    /// A comparison of a date column that has a form with a literal, in the column's form
    /// (``DateStorageForm/condition(_:_:_:)``) and with OData's two-valued logic; nil for any other.
    func dateComparison(_ op: BinaryOperator, _ lhs: BoundExpression, _ rhs: BoundExpression,
                        operandType: EDMPrimitiveType?, exact: Bool) -> SQLTerm? {
        guard operandType == .dateTime || operandType == .dateTimeOffset else { return nil }
        let column: (column: SQLTerm, form: DateStorageForm), instant: ODataDateTime, comparison: DateComparison, nullable: Bool
        if let found = dateColumn(lhs), let value = literalInstant(rhs, operandType), let compared = Self.dateComparison(op) {
            (column, instant, comparison, nullable) = (found, value, compared, Nullability.canBeNull(lhs))
        } else if let found = dateColumn(rhs), let value = literalInstant(lhs, operandType), let compared = Self.dateComparison(op) {
            (column, instant, comparison, nullable) = (found, value, compared.flipped, Nullability.canBeNull(rhs))
        } else {
            return nil
        }
        let condition = column.form.condition(column.column, comparison, instant)
        if op == .ne {
            // True for a null column, as OData's `ne` is.
            return nullable ? .or([.isNull(column.column, negated: false), .not(condition)]) : .not(condition)
        }
        guard exact, nullable else { return condition }
        return .template(["COALESCE(", .expression(condition), ", FALSE)"])
    }

    /// The operands of any other comparison where a side is a date column with a form: both as
    /// Julian days (``DateStorageForm/julian(_:)``), unless both are columns of one form that
    /// stores equal instants alike; nil when neither side has a form.
    func dateOperands(_ lhs: BoundExpression, _ rhs: BoundExpression, operandType: EDMPrimitiveType?) -> (SQLTerm, SQLTerm)? {
        guard operandType == .dateTime || operandType == .dateTimeOffset else { return nil }
        let left = dateColumn(lhs), right = dateColumn(rhs)
        guard left != nil || right != nil else { return nil }
        if let left, let right, left.form == right.form, left.form.storesInstantsAlike {
            return (left.column, right.column)
        }
        func julian(_ side: (column: SQLTerm, form: DateStorageForm)?, _ expression: BoundExpression) -> SQLTerm {
            if let side { return side.form.julian(side.column) }
            // Strata's own text, or an offset to apply: julianday() reads both.
            return .call("julianday", [scalar(expression, as: operandType)])
        }
        return (julian(left, lhs), julian(right, rhs))
    }

    /// A function's argument; a date column with a form as Strata's own text, which the date
    /// functions read whatever the form (``DateStorageForm/canonicalText(_:)``).
    func argument(_ expression: BoundExpression) -> SQLTerm {
        if let (column, form) = dateColumn(expression) { return form.canonicalText(column) }
        return scalar(expression, as: expression.type)
    }

    /// The instant a non-null date literal names, converted to the comparison's type first.
    private func literalInstant(_ expression: BoundExpression, _ type: EDMPrimitiveType?) -> ODataDateTime? {
        guard case .literal(let value) = expression.node, !value.isNull else { return nil }
        return (type.flatMap { value.converted(to: $0) } ?? value).instant
    }

    private static func dateComparison(_ op: BinaryOperator) -> DateComparison? {
        switch op {
        case .eq, .ne: return .equal
        case .lt: return .less
        case .le: return .lessOrEqual
        case .gt: return .greater
        case .ge: return .greaterOrEqual
        default: return nil
        }
    }
}
