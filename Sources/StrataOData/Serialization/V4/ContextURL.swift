import StrataCore

/// The `@odata.context` of a V4 answer: where in `$metadata` a client finds what the answer holds.
enum ContextURL {
    /// `…/$metadata#Person` for a collection of a set's entities (the set they belong to, also when
    /// reached through a navigation property), `…/$metadata#Person(firstName,lastName)` when
    /// `$select` narrowed them.
    static func collection(serviceRoot: String, shape: EntityShape) -> String {
        serviceRoot + "$metadata#" + shape.set.name + selection(shape)
    }

    /// `…/$metadata#Person/$entity` for one entity.
    static func entity(serviceRoot: String, shape: EntityShape) -> String {
        serviceRoot + "$metadata#" + shape.set.name + selection(shape) + "/$entity"
    }

    /// `…/$metadata#Person(1)/firstName` for one property of an entity addressed by key;
    /// `…/$metadata#Edm.String` when the path reaches the entity without its key.
    static func property(serviceRoot: String, path: ResolvedPath, property: EntityProperty) -> String {
        let target = path.target
        guard let key = target.key else { return serviceRoot + "$metadata#" + property.type.v4Name }
        let predicate = KeyPredicate.forKey(names: target.type.keyNames, values: key).urlText
        return serviceRoot + "$metadata#" + target.set.name + predicate + "/" + property.name
    }

    /// `…/$metadata#Collection($ref)` for `$ref` (V2's `$links`), `…/$metadata#$ref` for one.
    static func references(serviceRoot: String, single: Bool) -> String {
        serviceRoot + "$metadata#" + (single ? "$ref" : "Collection($ref)")
    }

    /// The written properties and expanded navigation properties when `$select` left some out.
    private static func selection(_ shape: EntityShape) -> String {
        guard isNarrowed(shape) else { return "" }
        return "(" + items(shape).joined(separator: ",") + ")"
    }

    /// A shape writes fewer than all properties: its own `$select`, or one in an expansion's options.
    private static func isNarrowed(_ shape: EntityShape) -> Bool {
        shape.writtenProperties.count < shape.type.properties.count
            || shape.navigations.contains { $0.expansion.map(isNarrowed) ?? false }
    }

    /// `firstName,PersonCar(carID,Car(make))`: each expanded navigation property with what it
    /// writes of its entities, empty parentheses when that is everything.
    private static func items(_ shape: EntityShape) -> [String] {
        var names = shape.writtenProperties.count < shape.type.properties.count ? shape.writtenProperties.map { shape.properties[$0].name } : []
        names += shape.navigations.compactMap { navigation, expansion in
            expansion.map { navigation.name + "(" + (isNarrowed($0) ? items($0).joined(separator: ",") : "") + ")" }
        }
        return names
    }
}
