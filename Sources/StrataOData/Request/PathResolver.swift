import StrataCore

/// Resolves a parsed resource path against a service's model, converting keys to their types.
/// Every failure is a 404 (unknown name) or 400 (malformed use) that names the segment at fault.
package struct PathResolver {
    let model: ServiceModel

    package init(model: ServiceModel) {
        self.model = model
    }

    package func resolve(_ path: ResourcePath) throws(ODataError) -> ResolvedPath {
        var segments = path.segments[...]
        guard let first = segments.popFirst() else {
            throw .badRequest("The path names no entity set.")
        }
        guard !first.isSystem else {
            throw .badRequest("'\(first.name)' cannot appear here; it must be the only segment after the service name.")
        }
        guard let set = model.entitySet(named: first.name) else {
            throw .notFound("The service \(model.serviceName) has no entity set named '\(first.name)'.\(suggestion(first.name, among: model.entitySets.map(\.name)))")
        }
        let type = model.entityType(of: set)
        var steps = [ResolvedPath.Step(set: set, type: type, via: nil, key: try first.key.map { k throws(ODataError) in try convert(k, for: type, segment: first) })]
        var terminal = ResolvedPath.Terminal.entities

        while let segment = segments.popFirst() {
            let current = steps[steps.count - 1]
            switch segment.name {
            case "$count":
                guard current.isCollection, segment.key == nil else {
                    throw .badRequest("$count must follow a collection, as in \(current.set.name)/$count.")
                }
                terminal = .count
                try expectEnd(segments, after: "$count")
                return ResolvedPath(steps: steps, terminal: terminal)
            case "$links":
                guard !current.isCollection else {
                    throw .badRequest("$links must follow a single entity, as in \(current.set.name)(1)/$links/Nav.")
                }
                guard let navSegment = segments.popFirst(), !navSegment.isSystem else {
                    throw .badRequest("$links must be followed by a navigation property name.")
                }
                let navigation = try navigationProperty(navSegment.name, on: current.type)
                let targetType = try targetType(of: navigation)
                var key: [ODataValue]?
                if let k = navSegment.key {
                    guard navigation.multiplicity == .many else {
                        throw .badRequest("The navigation property \(navigation.name) leads to a single entity and takes no key.")
                    }
                    key = try convert(k, for: targetType, segment: navSegment)
                }
                try expectEnd(segments, after: "$links/\(navigation.name)")
                return ResolvedPath(steps: steps, terminal: .links(navigation, key: key))
            case "$ref":
                // V4's spelling of V2's `$links`: `Person(1)/PersonCar/$ref` is `Person(1)/$links/PersonCar`.
                guard let navigation = current.via, steps.count > 1, segment.key == nil else {
                    throw .badRequest("$ref must follow a navigation property, as in \(current.set.name)(1)/Nav/$ref.")
                }
                guard !steps[steps.count - 2].isCollection else {
                    throw .badRequest("$ref must follow a navigation property of a single entity, as in \(steps[steps.count - 2].set.name)(1)/\(navigation.name)/$ref.")
                }
                try expectEnd(segments, after: "\(navigation.name)/$ref")
                steps.removeLast()
                return ResolvedPath(steps: steps, terminal: .links(navigation, key: current.key))
            case "$value":
                throw .badRequest("$value must follow a property, as in \(current.set.name)(1)/property/$value.")
            case let name where name.hasPrefix("$"):
                throw .badRequest("The system segment '\(name)' cannot appear here.")
            default:
                break
            }
            guard !current.isCollection else {
                throw .badRequest("The segment '\(segment.name)' cannot follow the collection \(current.set.name); address one entity first, as in \(current.set.name)(key)/\(segment.name).")
            }
            if let property = current.type.property(named: segment.name) {
                guard segment.key == nil else {
                    throw .badRequest("The property \(segment.name) is not a collection and takes no key.")
                }
                terminal = .property(property)
                if let next = segments.popFirst() {
                    guard next.name == "$value", next.key == nil else {
                        throw .badRequest("Only $value may follow the property \(property.name).")
                    }
                    terminal = .rawValue(property)
                    try expectEnd(segments, after: "$value")
                }
                return ResolvedPath(steps: steps, terminal: terminal)
            }
            let navigation = try navigationProperty(segment.name, on: current.type)
            let nextType = try targetType(of: navigation)
            guard let nextSet = model.entitySet(named: navigation.targetSet) else {
                throw .notFound("The entity set \(navigation.targetSet) is not available.")
            }
            var key: [ODataValue]?
            if let k = segment.key {
                guard navigation.multiplicity == .many else {
                    throw .badRequest("The navigation property \(navigation.name) leads to a single entity and takes no key.")
                }
                key = try convert(k, for: nextType, segment: segment)
            }
            steps.append(ResolvedPath.Step(set: nextSet, type: nextType, via: navigation, key: key))
        }
        return ResolvedPath(steps: steps, terminal: terminal)
    }

    private func expectEnd(_ rest: ArraySlice<PathSegment>, after: String) throws(ODataError) {
        if let extra = rest.first {
            throw .badRequest("The segment '\(extra.name)' cannot follow \(after).")
        }
    }

    private func navigationProperty(_ name: String, on type: EntityType) throws(ODataError) -> NavigationProperty {
        guard let navigation = type.navigationProperty(named: name) else {
            let names = type.properties.map(\.name) + type.navigationProperties.map(\.name)
            throw .notFound("The type \(type.qualifiedName) has no property or navigation property named '\(name)'.\(suggestion(name, among: names))")
        }
        return navigation
    }

    private func targetType(of navigation: NavigationProperty) throws(ODataError) -> EntityType {
        guard let set = model.entitySet(named: navigation.targetSet) else {
            throw .notFound("The entity set \(navigation.targetSet) is not available.")
        }
        return model.entityType(of: set)
    }

    /// Converts a key predicate to the key properties' types, in key order.
    func convert(_ predicate: KeyPredicate, for type: EntityType, segment: PathSegment) throws(ODataError) -> [ODataValue] {
        let keyProperties = type.keyProperties
        var values: [ODataValue] = []
        switch predicate {
        case .single(let value):
            guard keyProperties.count == 1 else {
                let names = keyProperties.map { "\($0.name)=…" }.joined(separator: ",")
                throw .badRequest("The key of \(type.qualifiedName) has \(keyProperties.count) properties; name them all, as in \(segment.name)(\(names)).")
            }
            values.append(try convert(value, to: keyProperties[0]))
        case .named(let pairs):
            guard pairs.count == keyProperties.count else {
                throw .badRequest("The key of \(type.qualifiedName) is (\(keyProperties.map(\.name).joined(separator: ","))); the URL gives \(pairs.count) value(s).")
            }
            for property in keyProperties {
                guard let pair = pairs.first(where: { $0.name == property.name }) else {
                    throw .badRequest("The key of \(type.qualifiedName) is (\(keyProperties.map(\.name).joined(separator: ","))); \(property.name) is missing.")
                }
                values.append(try convert(pair.value, to: property))
            }
        }
        return values
    }

    private func convert(_ value: ODataValue, to property: EntityProperty) throws(ODataError) -> ODataValue {
        if value.isNull {
            // Only an inferred key of a view or a table without primary key can hold a null (see ModelBuilder).
            guard property.isNullable else { throw .badRequest("The key property \(property.name) cannot be null.") }
            return value
        }
        guard let converted = value.converted(to: property.type) else {
            throw .badRequest("The key value \(value) does not fit \(property.name), which is \(property.type.rawValue).")
        }
        return converted
    }

    /// " Did you mean 'Person'?" when a name differs from a known one only in case.
    private func suggestion(_ name: String, among names: [String]) -> String {
        guard let match = names.first(where: { $0.lowercased() == name.lowercased() }) else { return "" }
        return " Names are case-sensitive: did you mean '\(match)'?"
    }
}
