import Foundation

/// Binding what only V4's grammar produces: range variables (`$it`, lambda variables), lambdas,
/// `Nav/$count` and `in`, and V4's mixing of date-time literals.
extension ExpressionBinder {
    /// Where a path starts: `$it/…` and plain paths at the entity (scope 0), `v/…` at the lambda
    /// variable `v`. Returns the scope, its entity type and the rest of the path.
    func start(of path: PropertyPath) throws(ODataError) -> (scope: Int, type: EntityType, rest: PropertyPath) {
        guard let first = path.segments.first else { throw error("an empty property path cannot be used") }
        var scope = 0
        var type = root
        if first == "$it" {
            scope = 0
        } else if let index = variables.lastIndex(where: { $0.name == first }) {
            scope = index + 1
            type = variables[index].type
        } else {
            return (0, root, path)
        }
        let rest = PropertyPath(Array(path.segments.dropFirst()))
        guard !rest.segments.isEmpty else {
            throw error("\(first) is an entity, not a value; name one of its properties, as in \(first)/\(type.keyNames.first ?? "property")")
        }
        return (scope, type, rest)
    }

    /// `Nav`, `Single/Nav`, `v/Nav`: single-valued hops, then a collection-valued navigation property.
    func resolveCollection(_ path: PropertyPath) throws(ODataError) -> BoundCollectionPath {
        let (scope, start, rest) = try self.start(of: path)
        var type = start
        var hops: [NavigationHop] = []
        for (index, name) in rest.segments.enumerated() {
            let isLast = index == rest.segments.count - 1
            let walked = rest.segments[...index].joined(separator: "/")
            guard let navigation = type.navigationProperty(named: name) else {
                if type.property(named: name) != nil {
                    throw error("\(walked) is a property, not a collection of related entities; any, all and $count take a collection-valued navigation property")
                }
                throw QueryBinder.unknownProperty(name, on: type, option: option)
            }
            let (set, target) = try QueryBinder.target(of: navigation, in: model)
            hops.append(NavigationHop(sourceTypeName: type.qualifiedName, property: navigation, targetSet: set, targetType: target))
            type = target
            if isLast {
                guard navigation.multiplicity.isCollection else {
                    throw error("\(walked) leads to a single \(target.qualifiedName), not a collection; any, all and $count take a collection-valued navigation property (compare its properties directly, as in \(walked)/\(target.keyNames.first ?? "property"))")
                }
            } else if navigation.multiplicity.isCollection {
                throw error("\(walked) is a collection of \(target.qualifiedName); go into it with a lambda, as in \(walked)/any(x:x/…)")
            }
        }
        return BoundCollectionPath(scope: scope, hops: hops)
    }

    /// `x in (a,b)` means `x eq a or x eq b`: each comparison is checked as `eq` would be.
    func bindIn(_ operand: QueryExpression, _ items: [QueryExpression], source: QueryExpression) throws(ODataError) -> BoundExpression {
        let bound = try bind(operand)
        var result: BoundExpression?
        for item in items {
            let comparison = try bindBinary(.eq, bound, try bind(item), source: .binary(.eq, operand, item))
            result = try result.map { (previous) throws(ODataError) in
                try bindBinary(.or, previous, comparison, source: source)
            } ?? comparison
        }
        // An empty list contains nothing.
        return result ?? Self.boolean(false)
    }

    func bindLambda(_ path: PropertyPath, _ op: LambdaOperator, variable: String?, predicate: QueryExpression?,
                    source: QueryExpression) throws(ODataError) -> BoundExpression {
        let collection = try resolveCollection(path)
        let scope = variables.count + 1
        guard let predicate else {
            guard op == .any else { throw error("all needs a variable and a predicate, in \(source.text)") }
            return BoundExpression(type: .boolean, node: .lambda(BoundLambda(op: .any, collection: collection, predicate: nil, variableScope: scope)))
        }
        guard let variable else { throw error("\(op.rawValue) needs a variable for its predicate, in \(source.text)") }
        guard let target = collection.hops.last?.targetType else { throw error("an empty path cannot be used, in \(source.text)") }
        var inner = self
        inner.variables.append((variable, target))
        let bound = try inner.bind(predicate)
        guard bound.type == nil || bound.type == .boolean else {
            throw error("the predicate of \(op.rawValue) must be Edm.Boolean, not \(Self.name(bound.type)), in \(source.text)")
        }
        return BoundExpression(type: .boolean, node: .lambda(BoundLambda(op: op, collection: collection, predicate: bound, variableScope: scope)))
    }

    /// V4 shows V2's `Edm.DateTime` as `Edm.DateTimeOffset` and writes dates as `2020-01-01`: a
    /// date-time literal compared with the other kind of date-time is converted to it (in UTC).
    static func v4DateLiterals(_ lhs: BoundExpression, _ rhs: BoundExpression) -> (BoundExpression, BoundExpression) {
        let dates: Set<EDMPrimitiveType> = [.dateTime, .dateTimeOffset]
        guard let l = lhs.type, let r = rhs.type, l != r, dates.contains(l), dates.contains(r) else { return (lhs, rhs) }
        func converted(_ literal: BoundExpression, to type: EDMPrimitiveType) -> BoundExpression? {
            guard case .literal(let value) = literal.node, let value = value.converted(to: type) else { return nil }
            return BoundExpression(type: type, node: .literal(value))
        }
        if let right = converted(rhs, to: l) { return (lhs, right) }
        if let left = converted(lhs, to: r) { return (left, rhs) }
        return (lhs, rhs)
    }

    /// `now()`, `maxdatetime()`, `mindatetime()` are constants of the request: literals here.
    static func constant(_ function: QueryFunction) -> ODataValue? {
        switch function {
        case .now: return .dateTimeOffset(ODataDateTimeOffset(utc: ODataDateTime(Date())))
        case .maxdatetime:
            return ODataDateTime(year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 59, microsecond: 999_999)
                .map { .dateTimeOffset(ODataDateTimeOffset(utc: $0)) }
        case .mindatetime:
            return ODataDateTime(year: 1, month: 1, day: 1).map { .dateTimeOffset(ODataDateTimeOffset(utc: $0)) }
        default: return nil
        }
    }
}
