import Foundation
import StrataCore

/// Completes V4 minimal metadata as full metadata would have it: each entity's `@odata.id`, made
/// from its entity set and key (`…/Person(1)`), and its `@odata.type`, for the entity and the
/// entities expanded inside it.
///
/// V4 services leave both out of minimal metadata because a client that knows the model can
/// compute them; the client needs them to track ETags by entity URL and to read properties as
/// the model types them (``Entity/value(_:in:)``).
struct EntityIdentifier: Sendable {
    let model: ServiceModel
    /// The service root, ending in `/`: entity ids are relative to it.
    let serviceRoot: URL

    /// The entity set a context URL's fragment names: `…$metadata#Person`, `#Person/$entity`,
    /// `#Person(firstName,PersonCar())/$entity`, `#Person(1)/PersonCar`; nil for anything else
    /// (a property, a `$ref` collection, a type).
    func entitySet(context: String) -> EntitySet? {
        guard let hash = context.firstIndex(of: "#") else { return nil }
        let components = Self.split(context[context.index(after: hash)...])
        guard let first = components.first, var set = model.entitySet(named: Self.name(first)) else { return nil }
        for component in components.dropFirst() where component != "$entity" {
            guard let navigation = model.entityType(of: set).navigationProperty(named: Self.name(component)),
                  let target = model.entitySet(named: navigation.targetSet) else { return nil }
            set = target
        }
        return set
    }

    /// The entity with `@odata.id` and `@odata.type` added where it lacks them and a relative id
    /// made absolute, its expanded entities too.
    func complete(_ object: JSONObject, in set: EntitySet) -> JSONObject {
        var object = object
        let type = model.entityType(of: set)
        if let id = object["@odata.id"]?.stringValue {
            if let absolute = URL(string: id, relativeTo: serviceRoot)?.absoluteString, absolute != id { object["@odata.id"] = .string(absolute) }
        } else if let key = key(of: object, type) {
            object["@odata.id"] = .string(serviceRoot.absoluteString + PathSegment(set.name, key: key).urlText(version: .v4))
        }
        if object["@odata.type"] == nil {
            object["@odata.type"] = .string("#" + type.qualifiedName)
        }
        for navigation in type.navigationProperties {
            guard let value = object[navigation.name], let target = model.entitySet(named: navigation.targetSet) else { continue }
            switch value {
            case .object(let related):
                object[navigation.name] = .object(complete(related, in: target))
            case .array(let items):
                object[navigation.name] = .array(items.map { item in item.objectValue.map { .object(complete($0, in: target)) } ?? item })
            default:
                break
            }
        }
        return object
    }

    /// The key predicate of an entity, nil when a key property is missing (a `$select` left it out).
    private func key(of object: JSONObject, _ type: EntityType) -> KeyPredicate? {
        var values: [(name: String, value: ODataValue)] = []
        for name in type.keyNames {
            guard let json = object[name], let property = type.property(named: name),
                  let value = try? ODataJSON.decode(json, as: property.type), value != .null else { return nil }
            values.append((name, value))
        }
        return values.isEmpty ? nil : KeyPredicate.forKey(values)
    }

    /// The path components of a context fragment, split at slashes outside parentheses.
    private static func split(_ fragment: Substring) -> [Substring] {
        var components: [Substring] = []
        var depth = 0
        var start = fragment.startIndex
        for index in fragment.indices {
            switch fragment[index] {
            case "(": depth += 1
            case ")": depth -= 1
            case "/" where depth == 0:
                components.append(fragment[start..<index])
                start = fragment.index(after: index)
            default: break
            }
        }
        components.append(fragment[start...])
        return components
    }

    /// A component's name without its parentheses: `Person(1)` is `Person`.
    private static func name(_ component: Substring) -> String {
        String(component.prefix { $0 != "(" })
    }
}
