import StrataCore

/// Client SQL on SQLite date columns whose values are not in Strata's own form
/// (``DateStorageForm``). A comparison with a constant (`=`, `<>`, `<`, `<=`, `>`, `>=`, `BETWEEN`,
/// `IN`) is written in the column's form, so the column's index serves it; a selected column is
/// read as it is stored; `ORDER BY` sorts by what the form sorts by. Everywhere else — functions,
/// `CASE`, grouping, comparisons of two columns — the column is read as Strata's own text, through
/// SQLite's date functions (to the millisecond), so that it means what a column of Strata's form means.
extension SQLEmitter {
    /// The column an expression names and its date form; nil when it has none.
    func dateColumn(_ e: SQLTypedExpression) -> (column: SQLTerm, form: DateStorageForm)? {
        guard dialect == .sqlite, !dateForms.isEmpty, e.type == .dateTime || e.type == .dateTimeOffset,
              case .column(let source, let name) = e.node else { return nil }
        // The forms go by the database's names, as the emitted SQL does.
        let table = statement.tables[source]
        let column = table.storedColumn(name)
        guard let form = dateForms[table: table.storedName, column: column] else { return nil }
        return (.column(alias: table.alias, name: column), form)
    }

    /// A selected date column: as stored (``DateStorageForm/read(_:)``); as Strata's text under
    /// `DISTINCT` when equal instants may be stored differently.
    func selectedDate(_ e: SQLTypedExpression) -> SQLTerm? {
        guard let (column, form) = dateColumn(e) else { return nil }
        return statement.distinct && !form.storesInstantsAlike ? form.canonicalText(column) : form.read(column)
    }

    /// What `ORDER BY` a date column sorts by (``DateStorageForm/sortKey(_:)``).
    func dateSortKey(_ e: SQLTypedExpression) -> SQLTerm? {
        guard let (column, form) = dateColumn(e) else { return nil }
        if statement.distinct, !form.storesInstantsAlike { return form.canonicalText(column) }
        return form.sortKey(column).expression
    }

    /// `column op constant` in the column's form; nil for any other comparison.
    func dateComparison(_ op: SQLComparisonOperator, _ lhs: SQLTypedExpression, _ rhs: SQLTypedExpression) -> SQLTerm? {
        if let (column, form) = dateColumn(lhs), let instant = Self.instant(rhs) {
            return Self.condition(op, column, form, instant, flipped: false)
        }
        if let (column, form) = dateColumn(rhs), let instant = Self.instant(lhs) {
            return Self.condition(op, column, form, instant, flipped: true)
        }
        return nil
    }

    /// `column [NOT] BETWEEN a AND b` with constant bounds, in the column's form.
    func dateBetween(_ operand: SQLTypedExpression, _ low: SQLTypedExpression, _ high: SQLTypedExpression, negated: Bool) -> SQLTerm? {
        guard let (column, form) = dateColumn(operand), let from = Self.instant(low), let to = Self.instant(high) else { return nil }
        let between = SQLTerm.and([form.condition(column, .greaterOrEqual, from), form.condition(column, .lessOrEqual, to)])
        return negated ? .not(between) : between
    }

    /// `column [NOT] IN (constants…)` in the column's form.
    func dateList(_ operand: SQLTypedExpression, _ list: [SQLTypedExpression], negated: Bool) -> SQLTerm? {
        guard let (column, form) = dateColumn(operand) else { return nil }
        var instants: [ODataDateTime] = []
        for item in list {
            guard let instant = Self.instant(item) else { return nil }
            instants.append(instant)
        }
        let any = SQLTerm.or(instants.map { form.condition(column, .equal, $0) })
        return negated ? .not(any) : any
    }

    private static func condition(_ op: SQLComparisonOperator, _ column: SQLTerm, _ form: DateStorageForm,
                                  _ instant: ODataDateTime, flipped: Bool) -> SQLTerm {
        let comparison: DateComparison
        switch op {
        case .equal, .notEqual: comparison = .equal
        case .less: comparison = .less
        case .lessOrEqual: comparison = .lessOrEqual
        case .greater: comparison = .greater
        case .greaterOrEqual: comparison = .greaterOrEqual
        }
        let condition = form.condition(column, flipped ? comparison.flipped : comparison, instant)
        return op == .notEqual ? .not(condition) : condition
    }

    /// The instant a non-null date constant names (a literal or a parameter, converted by the checker).
    private static func instant(_ e: SQLTypedExpression) -> ODataDateTime? {
        guard case .value(let value) = e.node else { return nil }
        switch value {
        case .dateTime(let d): return d
        case .dateTimeOffset(let d): return d.utc
        default: return nil
        }
    }
}
