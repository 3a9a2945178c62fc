/// Binds one expression of `$filter` or `$orderby` (named by `option` in messages) on a root entity type.
struct ExpressionBinder {
    let model: ServiceModel
    let root: EntityType
    let option: String
    /// The grammar the expression was written in; V4 compares date-time literals with either kind
    /// of date-time (`ExpressionBinder+V4.swift`), since V4's model shows `Edm.DateTime` as `Edm.DateTimeOffset`.
    var version: ODataVersion = .v2
    /// The variables of the enclosing lambdas, outermost first; a variable's scope number is its
    /// index + 1 (0 is the entity itself, `$it`).
    var variables: [(name: String, type: EntityType)] = []

    func error(_ what: String) -> ODataError { .badRequest("\(option): \(what)") }

    func bind(_ expression: QueryExpression) throws(ODataError) -> BoundExpression {
        // Left-associative chains (`a or b or c …`) nest to the left as deep as they are long, up to the
        // node limit; walking that spine in a loop keeps the recursion to what the depth limit allows.
        var spine: [(op: BinaryOperator, rhs: QueryExpression, source: QueryExpression)] = []
        var leftmost = expression
        while case .binary(let op, let lhs, let rhs) = leftmost {
            spine.append((op, rhs, leftmost))
            leftmost = lhs
        }
        var bound = try bindOperand(leftmost)
        for link in spine.reversed() {
            bound = try bindBinary(link.op, bound, try bind(link.rhs), source: link.source)
        }
        return bound
    }

    /// Binds anything but a binary operator.
    private func bindOperand(_ expression: QueryExpression) throws(ODataError) -> BoundExpression {
        switch expression {
        case .literal(let value):
            return BoundExpression(type: value.type, node: .literal(value))
        case .property(let path):
            let bound = try resolve(path)
            return BoundExpression(type: bound.property.type, node: .property(bound))
        case .binary:
            return try bind(expression)
        case .unary(let op, let operand):
            return try bindUnary(op, try bind(operand), source: expression)
        case .call(let function, let arguments):
            var bound: [BoundExpression] = []
            for argument in arguments { bound.append(try bind(argument)) }
            return try bindCall(function, bound, source: expression)
        case .isOf(let operand, let typeName):
            return try bindIsOf(operand, typeName, source: expression)
        case .cast(let operand, let typeName):
            return try bindCast(operand, typeName, source: expression)
        case .in(let operand, let items):
            return try bindIn(operand, items, source: expression)
        case .lambda(let path, let op, let variable, let predicate):
            return try bindLambda(path, op, variable: variable, predicate: predicate, source: expression)
        case .count(let path):
            let collection = try resolveCollection(path)
            return BoundExpression(type: .int64, node: .count(collection))
        }
    }

    /// Resolves `Nav/Nav/property`, allowing only navigation properties that lead to one entity.
    func resolve(_ path: PropertyPath) throws(ODataError) -> BoundPropertyPath {
        let (scope, start, path) = try self.start(of: path)
        var type = start
        var hops: [NavigationHop] = []
        for (index, name) in path.segments.enumerated() {
            let isLast = index == path.segments.count - 1
            let walked = path.segments[...index].joined(separator: "/")
            if let property = type.property(named: name) {
                guard isLast else {
                    throw error("\(walked) is a property of type \(property.type.qualifiedName) and has no property '\(path.segments[index + 1])'")
                }
                return BoundPropertyPath(navigation: hops, property: property, scope: scope)
            }
            guard let navigation = type.navigationProperty(named: name) else {
                throw QueryBinder.unknownProperty(name, on: type, option: option)
            }
            let (set, target) = try QueryBinder.target(of: navigation, in: model)
            guard !navigation.multiplicity.isCollection else {
                // V4 reaches into collections with a lambda or counts them; V2 cannot.
                let advice = version.isV4 ? "; test its members with a lambda, as in \(walked)/any(x: x/…), or count them with \(walked)/$count" : ""
                throw error("\(walked) is a collection of \(target.qualifiedName); a \(option) path can only go through navigation properties that lead to a single entity" + advice)
            }
            hops.append(NavigationHop(sourceTypeName: type.qualifiedName, property: navigation, targetSet: set, targetType: target))
            type = target
            if isLast {
                let example = target.keyNames.first ?? target.properties.first?.name ?? "property"
                throw error("\(walked) is a navigation property, not a value; name one of its properties, as in \(walked)/\(example)")
            }
        }
        throw error("an empty property path cannot be used")
    }

    /// `Edm.Int32`, or `null` for an untyped null, for messages.
    static func name(_ type: EDMPrimitiveType?) -> String { type?.qualifiedName ?? "null" }

    func bindBinary(_ op: BinaryOperator, _ lhs: BoundExpression, _ rhs: BoundExpression,
                    source: QueryExpression) throws(ODataError) -> BoundExpression {
        var lhs = lhs, rhs = rhs
        if version.isV4, !op.isLogical, !op.isArithmetic { (lhs, rhs) = Self.v4DateLiterals(lhs, rhs) }
        let l = lhs.type, r = rhs.type
        if op.isLogical {
            for type in [l, r] where type != nil && type != .boolean {
                throw error("\(op.keyword) needs Edm.Boolean operands, not \(Self.name(l)) and \(Self.name(r)), in \(source.text)")
            }
            return BoundExpression(type: .boolean, node: .binary(op, lhs, rhs, operandType: .boolean))
        }
        if op.isArithmetic {
            let common: EDMPrimitiveType?
            switch (l, r) {
            case (nil, nil): common = nil
            case (let t?, nil), (nil, let t?): common = t.isNumeric ? t : nil
            case (let a?, let b?): common = EDMPrimitiveType.promoted(a, b)
            }
            guard common != nil || (l == nil && r == nil) else {
                throw error("\(op.keyword) needs numeric operands, not \(Self.name(l)) and \(Self.name(r)), in \(source.text)")
            }
            return BoundExpression(type: common, node: .binary(op, lhs, rhs, operandType: common))
        }
        let common = try comparisonType(l, r, op: op, source: source)
        return BoundExpression(type: .boolean, node: .binary(op, lhs, rhs, operandType: common))
    }

    /// The type two operands are compared in: equal types, promoted numeric types, or the typed side of
    /// a comparison with null.
    private func comparisonType(_ l: EDMPrimitiveType?, _ r: EDMPrimitiveType?, op: BinaryOperator,
                                source: QueryExpression) throws(ODataError) -> EDMPrimitiveType? {
        let common: EDMPrimitiveType?
        switch (l, r) {
        case (nil, nil): return nil
        case (let t?, nil), (nil, let t?): common = t
        case (let a?, let b?):
            guard let found = a == b ? a : EDMPrimitiveType.promoted(a, b) else {
                var message = "cannot compare \(a.qualifiedName) with \(b.qualifiedName) in \(source.text)"
                if [a, b].contains(.string), let other = [a, b].first(where: { $0 != .string }),
                   let example = Self.literalExample(other) {
                    message += "; write \(other.qualifiedName) values as \(example)"
                }
                throw error(message)
            }
            common = found
        }
        if op.isRelational, let common, [.boolean, .guid, .binary].contains(common) {
            throw error("\(op.keyword) cannot order \(common.qualifiedName) values, in \(source.text); use eq or ne")
        }
        return common
    }

    /// How to write a literal of the types whose literals need a prefix, for hints when one was
    /// written as a plain string.
    static func literalExample(_ type: EDMPrimitiveType) -> String? {
        switch type {
        case .dateTime: return "datetime'2009-11-01T00:00:00'"
        case .dateTimeOffset: return "datetimeoffset'2009-11-01T00:00:00Z'"
        case .time: return "time'PT13H20M'"
        case .guid: return "guid'12345678-aaaa-bbbb-cccc-ddddeeeeffff'"
        case .binary: return "X'0A1B'"
        default: return nil
        }
    }

    private func bindUnary(_ op: UnaryOperator, _ operand: BoundExpression, source: QueryExpression) throws(ODataError) -> BoundExpression {
        switch op {
        case .not:
            guard operand.type == nil || operand.type == .boolean else {
                throw error("not needs an Edm.Boolean operand, not \(Self.name(operand.type)), in \(source.text)")
            }
            return BoundExpression(type: .boolean, node: .unary(.not, operand))
        case .negate:
            guard operand.type == nil || operand.type?.isNumeric == true else {
                throw error("- needs a numeric operand, not \(Self.name(operand.type)), in \(source.text)")
            }
            // A Byte cannot be negative; its negation is computed as Int16.
            let type: EDMPrimitiveType? = operand.type == .byte ? .int16 : operand.type
            return BoundExpression(type: type, node: .unary(.negate, operand))
        }
    }
}
