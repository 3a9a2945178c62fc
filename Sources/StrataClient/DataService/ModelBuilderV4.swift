import StrataCore

/// Turns the raw elements of a CSDL 4.0 document into a ``ServiceModel``: types mapped to the
/// client's EDM types, navigation properties given their target sets and join columns, and each
/// pair of partner navigation properties made into the association V2 would have declared.
struct ModelBuilderV4 {
    typealias RawType = MetadataReaderV4.RawType
    typealias RawNavigation = MetadataReaderV4.RawNavigation

    /// Entity types, each with its base types' members already folded in.
    let types: [RawType]
    let sets: [MetadataReaderV4.RawSet]
    let aliases: [String: String]
    let enumTypes: Set<String>

    /// A type name with a schema alias replaced by its namespace: `self.Person` is `Trippin.Person`.
    static func resolve(_ name: String, aliases: [String: String]) -> String {
        guard let dot = name.lastIndex(of: "."), let namespace = aliases[String(name[..<dot])] else { return name }
        return namespace + name[dot...]
    }

    func entityTypes() -> [EntityType] {
        types.map { raw in
            let properties = raw.properties.compactMap { property, typeName -> EntityProperty? in
                guard let type = primitiveType(typeName) else { return nil }
                var typed = property
                typed.type = type
                return typed
            }
            return EntityType(name: raw.name, namespace: raw.namespace, properties: properties, keyNames: raw.keys,
                              navigationProperties: raw.navigations.map { navigation($0, of: raw) })
        }
    }

    func entitySets() -> [EntitySet] {
        sets.map { EntitySet(name: $0.name, entityTypeName: shortName(resolve($0.entityType))) }
    }

    /// One association per pair of partners (or per navigation property without one), named after
    /// the side that holds the foreign key.
    func associations() -> [Association] {
        var result: [Association] = []
        for type in types {
            for navigation in type.navigations where isOwner(navigation, of: type) {
                let partner = self.partner(of: navigation, in: type)
                let roles = self.roles(navigation, of: type)
                let target = End(role: roles.to, entityType: resolve(navigation.targetType), multiplicity: multiplicity(navigation))
                let source = End(role: roles.from, entityType: type.qualifiedName,
                                 multiplicity: partner.map { multiplicity($0.navigation) } ?? .many)
                // A to-one side points at its principal: it holds the foreign key (its constraints say which).
                let ownerIsDependent = !navigation.isCollection
                result.append(Association(
                    name: relationshipName(navigation, of: type),
                    principal: ownerIsDependent ? target : source,
                    dependent: ownerIsDependent ? source : target,
                    principalColumns: navigation.constraints.map(\.remote),
                    dependentColumns: navigation.constraints.map(\.local)))
            }
        }
        return result
    }

    private typealias End = Association.End

    private func navigation(_ raw: RawNavigation, of type: RawType) -> NavigationProperty {
        let roles = self.roles(raw, of: type)
        let (owner, ownerType) = partner(of: raw, in: type).flatMap { partner in
            isOwner(raw, of: type) ? nil : (partner.navigation, partner.type)
        } ?? (raw, type)
        return NavigationProperty(name: raw.name, relationship: ownerType.namespace + "." + relationshipName(owner, of: ownerType),
                                  fromRole: roles.from, toRole: roles.to,
                                  targetSet: targetSet(raw, of: type), multiplicity: multiplicity(raw),
                                  joinColumns: joinColumns(raw, of: type))
    }

    private func primitiveType(_ name: String) -> EDMPrimitiveType? {
        if let type = EDMPrimitiveType(v4Name: name) { return type }
        return enumTypes.contains(resolve(name)) ? .string : nil
    }

    private func multiplicity(_ navigation: RawNavigation) -> Multiplicity {
        navigation.isCollection ? .many : navigation.isNullable ? .zeroOrOne : .one
    }

    /// The navigation property of the target type that walks the same relationship back: the one
    /// `Partner` names, or one whose `Partner` names this one.
    private func partner(of navigation: RawNavigation, in type: RawType) -> (navigation: RawNavigation, type: RawType)? {
        guard let target = types.first(where: { $0.qualifiedName == resolve(navigation.targetType) }) else { return nil }
        let found = navigation.partner.flatMap { name in target.navigations.first { $0.name == name } }
            ?? target.navigations.first { $0.partner == navigation.name && resolve($0.targetType) == type.qualifiedName }
        return found.map { ($0, target) }
    }

    /// Whether this side of a pair names the relationship: the side with the referential
    /// constraints, else the side without a partner, else the one that sorts first.
    private func isOwner(_ navigation: RawNavigation, of type: RawType) -> Bool {
        guard let partner = partner(of: navigation, in: type) else { return true }
        if !navigation.constraints.isEmpty { return true }
        if !partner.navigation.constraints.isEmpty { return false }
        return (type.qualifiedName, navigation.name) <= (partner.type.qualifiedName, partner.navigation.name)
    }

    private func relationshipName(_ navigation: RawNavigation, of type: RawType) -> String {
        type.name + "_" + navigation.name
    }

    /// The association roles a navigation property goes from and to.
    private func roles(_ navigation: RawNavigation, of type: RawType) -> (from: String, to: String) {
        let from = type.name + "_" + navigation.name
        guard let partner = partner(of: navigation, in: type) else { return (from, shortName(resolve(navigation.targetType))) }
        return (from, partner.type.name + "_" + partner.navigation.name)
    }

    /// Local and remote columns: the navigation's own constraints, or its partner's turned round.
    private func joinColumns(_ navigation: RawNavigation, of type: RawType) -> [NavigationProperty.JoinColumn] {
        if !navigation.constraints.isEmpty { return navigation.constraints }
        guard let partner = partner(of: navigation, in: type) else { return [] }
        return partner.navigation.constraints.map { NavigationProperty.JoinColumn(local: $0.remote, remote: $0.local) }
    }

    /// The set a navigation property leads to: what a `NavigationPropertyBinding` of a set of this
    /// type (or of a base type) says, else the first set of the target type.
    private func targetSet(_ navigation: RawNavigation, of type: RawType) -> String {
        let lineage = self.lineage(of: type)
        for set in sets where lineage.contains(resolve(set.entityType)) {
            if let binding = set.bindings.first(where: { lastComponent($0.path) == navigation.name }) {
                return lastComponent(binding.target)
            }
        }
        let target = resolve(navigation.targetType)
        return sets.first { resolve($0.entityType) == target }?.name ?? shortName(target)
    }

    private func lineage(of type: RawType) -> Set<String> {
        var names: Set<String> = [type.qualifiedName]
        var base = type.baseType.map(resolve)
        while let name = base, names.insert(name).inserted {
            base = types.first { $0.qualifiedName == name }?.baseType.map(resolve)
        }
        return names
    }

    private func resolve(_ name: String) -> String { Self.resolve(name, aliases: aliases) }

    private func shortName(_ qualified: String) -> String {
        String(qualified.split(separator: ".").last ?? Substring(qualified))
    }

    /// `Container/Airports` and `NS.Derived/Nav` end in the name that matters.
    private func lastComponent(_ path: String) -> String {
        String(path.split(separator: "/").last ?? Substring(path))
    }
}
