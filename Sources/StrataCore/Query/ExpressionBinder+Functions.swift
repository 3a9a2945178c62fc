/// Checking function calls, `isof` and `cast` against their signatures (documented on ``QueryFunction``).
extension ExpressionBinder {
    func bindCall(_ function: QueryFunction, _ arguments: [BoundExpression], source: QueryExpression) throws(ODataError) -> BoundExpression {
        guard function.arity.contains(arguments.count) else {
            throw error("\(function.name) takes \(function.arityDescription), not \(arguments.count), in \(source.text)")
        }
        guard let result = Self.resultType(function, arguments.map(\.type)) else {
            let given = arguments.map { Self.name($0.type) }.joined(separator: ", ")
            throw error("\(function.name) cannot take (\(given)); it is \(function.signatures.joined(separator: " or ")), in \(source.text)")
        }
        if let constant = Self.constant(function) { return BoundExpression(type: result, node: .literal(constant)) }
        return BoundExpression(type: result, node: .call(function, arguments))
    }

    /// The result type when the argument types fit a signature; untyped nulls fit any parameter.
    static func resultType(_ function: QueryFunction, _ types: [EDMPrimitiveType?]) -> EDMPrimitiveType? {
        func fits(_ type: EDMPrimitiveType?, _ accepted: (EDMPrimitiveType) -> Bool) -> Bool {
            type.map(accepted) ?? true
        }
        let isString: (EDMPrimitiveType) -> Bool = { $0 == .string }
        switch function {
        case .substringof, .startswith, .endswith, .contains:
            return types.allSatisfy { fits($0, isString) } ? .boolean : nil
        case .length, .indexof:
            return types.allSatisfy { fits($0, isString) } ? .int32 : nil
        case .replace, .tolower, .toupper, .trim, .concat:
            return types.allSatisfy { fits($0, isString) } ? .string : nil
        case .substring:
            return fits(types[0], isString) && types.dropFirst().allSatisfy({ fits($0, \.isIntegral) }) ? .string : nil
        case .year, .month, .day:
            return fits(types[0]) { $0 == .dateTime || $0 == .dateTimeOffset } ? .int32 : nil
        case .hour, .minute, .second:
            return fits(types[0]) { $0 == .dateTime || $0 == .dateTimeOffset || $0 == .time } ? .int32 : nil
        case .round, .floor, .ceiling:
            switch types[0] {
            case nil: return .decimal
            case let type? where type.isIntegral || type == .decimal: return .decimal
            case .double?, .single?: return .double
            default: return nil
            }
        case .fractionalseconds:
            return fits(types[0]) { $0 == .dateTime || $0 == .dateTimeOffset || $0 == .time } ? .decimal : nil
        case .date:
            return fits(types[0]) { $0 == .dateTime || $0 == .dateTimeOffset } ? .dateTime : nil
        case .time:
            return fits(types[0]) { $0 == .dateTime || $0 == .dateTimeOffset } ? .time : nil
        case .totaloffsetminutes:
            return fits(types[0]) { $0 == .dateTime || $0 == .dateTimeOffset } ? .int32 : nil
        case .now, .maxdatetime, .mindatetime:
            return .dateTimeOffset
        }
    }

    /// A type name in `isof`/`cast`: a primitive type (`Edm.Int32`) or an entity type (`Namespace.Type`).
    private enum NamedType {
        case primitive(EDMPrimitiveType)
        case entity(EntityType)
    }

    private func resolveType(_ name: String, in function: String, source: QueryExpression) throws(ODataError) -> NamedType {
        if let entity = model.entityTypes.first(where: { $0.qualifiedName == name }) { return .entity(entity) }
        if let primitive = EDMPrimitiveType(name: name) { return .primitive(primitive) }
        // V4's name of Strata's Edm.Time.
        if version.isV4, name == "Edm.TimeOfDay" { return .primitive(.time) }
        throw error("unknown type \(QuerySyntaxError.quoted(name)) in \(source.text); \(function) takes an Edm type such as 'Edm.Int32' or an entity type such as '\(root.qualifiedName)'")
    }

    /// `isof` is decided here: the model has no inheritance, so a type test is either constant or, for a
    /// primitive of the asked type, a test that the value is present (as `x is T` is false for null).
    func bindIsOf(_ operand: QueryExpression?, _ typeName: String, source: QueryExpression) throws(ODataError) -> BoundExpression {
        let target = try resolveType(typeName, in: "isof", source: source)
        guard let operand else {
            if case .entity(let entity) = target, entity.qualifiedName == root.qualifiedName { return Self.boolean(true) }
            return Self.boolean(false)
        }
        let bound = try bind(operand)
        guard case .primitive(let type) = target, bound.type == type else { return Self.boolean(false) }
        let null = BoundExpression(type: nil, node: .literal(.null))
        return BoundExpression(type: .boolean, node: .binary(.ne, bound, null, operandType: type))
    }

    /// `cast` converts between numeric types (or types an untyped null); a cast to the operand's own type
    /// is dropped.
    func bindCast(_ operand: QueryExpression?, _ typeName: String, source: QueryExpression) throws(ODataError) -> BoundExpression {
        let target = try resolveType(typeName, in: "cast", source: source)
        guard let operand else {
            throw error("\(source.text) casts the entity itself, which \(option) cannot use; cast a property, as in cast(\(root.keyNames.first ?? "property"),'Edm.Int64')")
        }
        guard case .primitive(let type) = target else {
            throw error("\(source.text) casts to an entity type; \(option) can cast only to primitive types such as 'Edm.Int64'")
        }
        let bound = try bind(operand)
        guard let from = bound.type else { return BoundExpression(type: type, node: .cast(bound)) }
        if from == type { return bound }
        guard from.isNumeric && type.isNumeric else {
            throw error("cannot cast \(from.qualifiedName) to \(type.qualifiedName) in \(source.text); cast converts between numeric types")
        }
        return BoundExpression(type: type, node: .cast(bound))
    }

    static func boolean(_ value: Bool) -> BoundExpression {
        BoundExpression(type: .boolean, node: .literal(.boolean(value)))
    }
}
