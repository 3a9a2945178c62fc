import StrataCore

/// An ordering comparison of a column with an instant; `ne` is the negation of ``equal``.
package enum DateComparison: Sendable {
    case equal, less, lessOrEqual, greater, greaterOrEqual

    /// The comparison with its operands swapped: `instant < column` is `column > instant`.
    package var flipped: DateComparison {
        switch self {
        case .equal: return .equal
        case .less: return .greater
        case .lessOrEqual: return .greaterOrEqual
        case .greater: return .less
        case .greaterOrEqual: return .lessOrEqual
        }
    }
}

/// SQLite SQL for columns with a ``DateStorageForm``: the comparisons, orders and values that give
/// the same answers as Strata's own text form (and as PostgreSQL), written so that the stored
/// values are compared as they are wherever the form allows, and an index on the column serves.
extension DateStorageForm {
    /// `column op instant`, in three-valued logic (NULL where the column is NULL).
    ///
    /// Text layouts compare as text with the instant written in the layout: `eq` between its
    /// shortest and longest spelling (`'2016-07-04' … '2016-07-04 00:00:00.000000'`), since a writer
    /// may have used either. An instant finer than the layout's finest precision lies strictly
    /// between two values the column can hold, so `eq` is false for every row and `lt` is `<=` the
    /// one before it (`lt 2016-07-04T10:00` on a column of dates is `<= '2016-07-04'`). Numbers
    /// compare with the range of numbers that read as the instant's millisecond; a mixed column
    /// compares through `julianday()`.
    package func condition(_ column: SQLTerm, _ op: DateComparison, _ instant: ODataDateTime) -> SQLTerm {
        switch self {
        case .text(let layout):
            if let condition = Self.textCondition(column, op, instant, layout) { return condition }
            // Outside the years the layout can write in its offset: through SQLite's functions.
            return Self.numericCondition(julian(column), op, instant, unit: .julianDay)
        case .julianDay:
            return Self.numericCondition(column, op, instant, unit: .julianDay)
        case .unixTime:
            return Self.numericCondition(column, op, instant, unit: .unixSeconds)
        case .mixed:
            return Self.numericCondition(julian(column), op, instant, unit: .julianDay)
        }
    }

    /// Whether the stored values themselves sort in time order, so that comparing and sorting them
    /// directly is right and an index on the column serves.
    package var ordersAsStored: Bool {
        if case .mixed = self { return false }
        return true
    }

    /// Whether equal instants are always stored as equal values, so that two columns of this form
    /// compare as they are. Not for Julian days, whose writers may round differently.
    package var storesInstantsAlike: Bool {
        switch self {
        case .text(let layout): return layout.precisions.count == 1
        case .unixTime(let wholeSeconds): return wholeSeconds
        case .julianDay, .mixed: return false
        }
    }

    /// The value as a Julian day number (REAL), to the millisecond: what two columns of different
    /// forms are compared as. Text goes through `julianday()`, which applies a zone suffix; an
    /// INTEGER in a mixed column is Unix time, a REAL a Julian day in SQLite's Julian range (the
    /// rule Strata reads such values by, ``DateNumbers/instant(_:)``).
    package func julian(_ column: SQLTerm) -> SQLTerm {
        switch self {
        case .text, .julianDay:
            return .call("julianday", [column])
        case .unixTime:
            return .template(["julianday(", .expression(column), ", 'unixepoch')"])
        case .mixed:
            return .template(["(CASE WHEN typeof(", .expression(column), ") = 'text' THEN julianday(", .expression(column),
                              ") WHEN typeof(", .expression(column), ") = 'integer' OR ", .expression(column), " < 0 OR ",
                              .expression(column), " >= 5373484.5 THEN julianday(", .expression(column),
                              ", 'unixepoch') ELSE julianday(", .expression(column), ") END)"])
        }
    }

    /// The value as Strata's own text (`YYYY-MM-DD HH:MM:SS.SSS`, UTC): where a date is computed
    /// with rather than compared (date parts, `$sql` expressions, grouping), so that it means the
    /// same as a column of Strata's form, and reads back as a date-time.
    package func canonicalText(_ column: SQLTerm) -> SQLTerm {
        let source: SQLTerm
        if case .text = self { source = column } else { source = julian(column) }
        return .template(["strftime('%Y-%m-%d %H:%M:%f', ", .expression(source), ")"])
    }

    /// The expression a collection is sorted by, and the type of its values (what continuation
    /// tokens carry): the stored text or number where it sorts as time, else the Julian day.
    package func sortKey(_ column: SQLTerm) -> (expression: SQLTerm, type: EDMPrimitiveType) {
        switch self {
        case .text: return (column, .string)
        case .julianDay, .unixTime: return (column, .double)
        case .mixed: return (julian(column), .double)
        }
    }

    /// The column as a SELECT reads it. A NUMERIC column keeps a Julian day that is a whole
    /// number (noon) as an INTEGER, which alone would read as Unix time: it is read as REAL.
    package func read(_ column: SQLTerm) -> SQLTerm {
        if case .julianDay = self { return .template(["CAST(", .expression(column), " AS REAL)"]) }
        return column
    }

    // MARK: Comparisons

    private static func textCondition(_ column: SQLTerm, _ op: DateComparison, _ instant: ODataDateTime, _ layout: DateTextLayout) -> SQLTerm? {
        if let low = layout.lowest(instant), let high = layout.highest(instant) {
            switch op {
            case .equal:
                return low == high ? .binary(.equal, column, .value(.string(low)))
                    : .template(["(", .expression(column), " BETWEEN ", .expression(.value(.string(low))), " AND ",
                                 .expression(.value(.string(high))), ")"])
            case .less: return .binary(.less, column, .value(.string(low)))
            case .lessOrEqual: return .binary(.lessOrEqual, column, .value(.string(high)))
            case .greater: return .binary(.greater, column, .value(.string(high)))
            case .greaterOrEqual: return .binary(.greaterOrEqual, column, .value(.string(low)))
            }
        }
        // Finer than the layout: strictly between the value before it and the next one.
        guard let before = layout.highest(layout.truncated(instant)) else { return nil }
        switch op {
        case .equal: return whereNotNull(column, .alwaysFalse)
        case .less, .lessOrEqual: return .binary(.lessOrEqual, column, .value(.string(before)))
        case .greater, .greaterOrEqual: return .binary(.greater, column, .value(.string(before)))
        }
    }

    private enum NumericUnit {
        case julianDay, unixSeconds

        /// The number a whole millisecond is stored as, shifted by `half` milliseconds.
        func number(milliseconds: Int64, half: Double) -> Double {
            switch self {
            case .julianDay:
                return (Double(milliseconds + DateNumbers.unixEpochJulianMilliseconds) + half) / 86_400_000.0
            case .unixSeconds:
                return (Double(milliseconds) + half) / 1000.0
            }
        }
    }

    /// The stored numbers that read as the instant's millisecond lie in [low, high).
    private static func numericCondition(_ value: SQLTerm, _ op: DateComparison, _ instant: ODataDateTime, unit: NumericUnit) -> SQLTerm {
        let micros = instant.microsecondsSince1970
        let milliseconds = micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000)
        let exact = milliseconds * 1000 == micros
        let low = SQLTerm.value(.double(unit.number(milliseconds: milliseconds, half: -0.5)))
        let high = SQLTerm.value(.double(unit.number(milliseconds: milliseconds, half: 0.5)))
        guard exact else {
            // Between this millisecond and the next: no stored value equals it.
            switch op {
            case .equal: return whereNotNull(value, .alwaysFalse)
            case .less, .lessOrEqual: return .binary(.less, value, high)
            case .greater, .greaterOrEqual: return .binary(.greaterOrEqual, value, high)
            }
        }
        switch op {
        case .equal: return .and([.binary(.greaterOrEqual, value, low), .binary(.less, value, high)])
        case .less: return .binary(.less, value, low)
        case .lessOrEqual: return .binary(.less, value, high)
        case .greater: return .binary(.greaterOrEqual, value, high)
        case .greaterOrEqual: return .binary(.greaterOrEqual, value, low)
        }
    }

    /// A constant answer that is still NULL for a NULL column, as every other condition here is,
    /// so that callers negate and complete it alike.
    private static func whereNotNull(_ value: SQLTerm, _ answer: SQLTerm) -> SQLTerm {
        .template(["(CASE WHEN ", .expression(value), " IS NULL THEN NULL ELSE ", .expression(answer), " END)"])
    }
}
