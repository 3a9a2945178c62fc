import StrataCore

/// A resource path resolved against a service's model: the chain of entity sets it walks through,
/// and what it finally addresses.
package struct ResolvedPath: Sendable {
    /// A class, and immutable: a step holds its set and type by value, and every read of
    /// ``ResolvedPath/target`` would otherwise copy (and retain) all of their names and properties.
    package final class Step: Sendable {
        package let set: EntitySet
        package let type: EntityType
        /// The navigation property that led here from the previous step; nil for the first step.
        let via: NavigationProperty?
        /// Key values in key order, converted to the key properties' types.
        let key: [ODataValue]?

        package init(set: EntitySet, type: EntityType, via: NavigationProperty?, key: [ODataValue]?) {
            (self.set, self.type, self.via, self.key) = (set, type, via, key)
        }

        /// The step addresses a collection: an entity set or a collection navigation without a key.
        package var isCollection: Bool {
            key == nil && (via == nil || via!.multiplicity == .many)
        }
    }

    package enum Terminal: Sendable {
        /// The entities (or entity) of the last step.
        case entities
        /// One property of the entity: `Person(1)/firstName`.
        case property(EntityProperty)
        /// The raw value of a property: `Person(1)/firstName/$value`.
        case rawValue(EntityProperty)
        /// The number of entities: `Person/$count`.
        case count
        /// The links of a navigation property: `Person(1)/$links/PersonCar`.
        case links(NavigationProperty, key: [ODataValue]?)
    }

    package var steps: [Step]
    package var terminal: Terminal

    package init(steps: [Step], terminal: Terminal) {
        self.steps = steps
        self.terminal = terminal
    }

    package var target: Step { steps[steps.count - 1] }
}

extension ResolvedPath {
    /// `Person(1)/PersonCar(2)`: steps as a message names them.
    static func describe(_ steps: ArraySlice<Step>) -> String {
        steps.map { step in
            let name = step.via?.name ?? step.set.name
            guard let key = step.key else { return name }
            return name + KeyPredicate.forKey(names: step.type.keyNames, values: key).urlText
        }.joined(separator: "/")
    }
}
