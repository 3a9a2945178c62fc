import StrataCore

/// Typing calls of the allowed functions.
extension SQLCheckContext {
    mutating func checkFunction(
        _ function: SQLFunction, _ arguments: [SQLExpression], distinct: Bool, _ scope: Scope, at: SQLSourceLocation
    ) throws(ODataError) -> SQLTypedExpression {
        var inner = scope
        if function.isAggregate {
            try checkAggregatePlacement(function.rawValue, scope, at: at)
            inner.insideAggregate = true
        }
        var args: [SQLTypedExpression] = []
        for argument in arguments { args.append(try check(argument, inner)) }
        let type: EDMPrimitiveType?
        switch function {
        case .count:
            type = .int64
        case .sum:
            try expect(args, 0, function, "a number") { $0.isNumeric }
            type = args[0].type.map { $0.isIntegral ? .int64 : $0 == .decimal ? .decimal : .double }
        case .avg:
            try expect(args, 0, function, "a number") { $0.isNumeric }
            type = .double
        case .min, .max:
            try expect(args, 0, function, "a number, string, date or time", SQLTypeRules.isOrderable)
            type = args[0].type
        case .lower, .upper, .trim, .ltrim, .rtrim, .replace:
            for index in args.indices { try expect(args, index, function, "a string") { $0 == .string } }
            type = .string
        case .length:
            try expect(args, 0, function, "a string") { $0 == .string }
            type = .int32
        case .substr:
            try expect(args, 0, function, "a string") { $0 == .string }
            for index in args.indices.dropFirst() { try expect(args, index, function, "a whole number") { $0.isIntegral } }
            type = .string
        case .abs:
            try expect(args, 0, function, "a number") { $0.isNumeric }
            guard case .type(let t) = SQLTypeRules.arithmetic(.subtract, nil, args[0].type) else { preconditionFailure("numeric checked above") }
            type = t
        case .round:
            try expect(args, 0, function, "a number") { $0.isNumeric }
            if args.count == 2 { try expect(args, 1, function, "a whole number") { $0.isIntegral } }
            type = args[0].type == .double || args[0].type == .single ? .double : .decimal
        case .coalesce:
            (args, type) = try harmonize(args, "COALESCE", at: at)
        case .nullif:
            (args, type) = try harmonize(args, "NULLIF", at: at)
        case .year, .month, .day, .hour, .minute, .second:
            let allowsTime = function == .hour || function == .minute || function == .second
            if case .value(.string(let text)) = args[0].node {
                guard let value = SQLTypeRules.convert(text, to: .dateTime) else {
                    throw SQLRefusal.type("'\(text.prefix(40))' is not a valid Edm.DateTime", at: args[0].location, hint: "write it as 2009-11-01 or 2009-11-01T13:20:00")
                }
                args[0] = SQLTypedExpression(.value(value), type: .dateTime, at: args[0].location)
            }
            try expect(args, 0, function, allowsTime ? "a date, time or timestamp" : "a date or timestamp") {
                $0 == .dateTime || $0 == .dateTimeOffset || (allowsTime && $0 == .time)
            }
            type = .int32
        }
        return SQLTypedExpression(.function(function, args, distinct: distinct), type: type, at: at)
    }

    /// Refuses argument `index` unless its type passes `accepts`; `NULL` is accepted everywhere.
    private func expect(
        _ args: [SQLTypedExpression], _ index: Int, _ function: SQLFunction, _ description: String,
        _ accepts: (EDMPrimitiveType) -> Bool
    ) throws(ODataError) {
        guard let type = args[index].type, !accepts(type) else { return }
        let position = args.count == 1 ? "the argument" : "argument \(index + 1)"
        throw SQLRefusal.type("\(position) of \(function.rawValue) must be \(description), not \(type.qualifiedName)", at: args[index].location)
    }
}
