import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import StrataCore

/// Reads a CSDL 4.0 `$metadata` document, from Strata or from any other V4 service, into the same
/// ``ServiceModel`` a V2 document gives.
///
/// - Entity types with their keys, primitive and enumeration properties (enumerations read as
///   strings) and navigation properties; a `BaseType` lends its key and properties. Complex,
///   collection and stream properties are left out: the model has no type for them.
/// - Navigation properties: `Type="Collection(…)"` is to-many, `Nullable="false"` exactly one;
///   `ReferentialConstraint`s give the join columns, for the partner too. CSDL 4.0 has no
///   associations, so each pair of partners becomes one, named after the side that holds the
///   foreign key.
/// - Entity sets, and each navigation's target set from the container's
///   `NavigationPropertyBinding`s (else the first set of the target type).
/// - `Core.Computed` marks a server-generated property.
enum MetadataReaderV4 {
    static func read(_ data: Data) throws -> ServiceModel {
        let handler = Handler()
        try MetadataReader.parse(data, with: handler)
        return try handler.model()
    }

    struct RawNavigation {
        var name: String
        var type: String
        var isNullable: Bool
        var partner: String?
        var constraints: [NavigationProperty.JoinColumn] = []
        var isCollection: Bool { type.hasPrefix("Collection(") }
        /// The qualified target type, without `Collection(…)`.
        var targetType: String { isCollection ? String(type.dropFirst("Collection(".count).dropLast()) : type }
    }

    struct RawType {
        var name: String
        var namespace: String
        var baseType: String?
        var keys: [String] = []
        var properties: [(property: EntityProperty, typeName: String)] = []
        var navigations: [RawNavigation] = []
        var qualifiedName: String { namespace + "." + name }
    }

    struct RawSet {
        var name: String
        var entityType: String
        var bindings: [(path: String, target: String)] = []
    }

    /// Collects the schemas' elements as the parser meets them.
    private final class Handler: NSObject, XMLParserDelegate {
        var namespaces: [String] = []
        var aliases: [String: String] = [:]
        var containerName = ""
        var types: [RawType] = []
        var enumTypes: Set<String> = []
        var sets: [RawSet] = []
        private var namespace = ""
        private var path: [String] = []

        func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            let name = element.split(separator: ":").last.map(String.init) ?? element
            let parent = path.last
            path.append(name)
            switch (name, parent) {
            case ("Schema", _):
                namespace = attributes["Namespace"] ?? ""
                namespaces.append(namespace)
                if let alias = attributes["Alias"] { aliases[alias] = namespace }
            case ("EnumType", "Schema"):
                enumTypes.insert(namespace + "." + (attributes["Name"] ?? ""))
            case ("EntityType", "Schema"):
                types.append(RawType(name: attributes["Name"] ?? "", namespace: namespace, baseType: attributes["BaseType"]))
            case ("PropertyRef", "Key") where path.dropLast(2).last == "EntityType":
                types[types.count - 1].keys.append(attributes["Name"] ?? "")
            case ("Property", "EntityType"):
                let property = EntityProperty(
                    name: attributes["Name"] ?? "", type: .string,
                    isNullable: attributes["Nullable"] != "false",
                    maxLength: attributes["MaxLength"].flatMap { Int($0) },
                    precision: attributes["Precision"].flatMap { Int($0) },
                    scale: attributes["Scale"].flatMap { Int($0) },
                    isServerGenerated: false)
                types[types.count - 1].properties.append((property, attributes["Type"] ?? ""))
            case ("Annotation", "Property") where path.dropLast(2).last == "EntityType":
                let term = attributes["Term"] ?? ""
                if term.hasSuffix("Core.V1.Computed") || term == "Core.Computed", attributes["Bool"] != "false",
                   let last = types[types.count - 1].properties.indices.last {
                    types[types.count - 1].properties[last].property.isServerGenerated = true
                }
            case ("NavigationProperty", "EntityType"):
                types[types.count - 1].navigations.append(RawNavigation(
                    name: attributes["Name"] ?? "", type: attributes["Type"] ?? "",
                    isNullable: attributes["Nullable"] != "false", partner: attributes["Partner"]))
            case ("ReferentialConstraint", "NavigationProperty") where path.dropLast(2).last == "EntityType":
                let type = types.count - 1, navigation = types[type].navigations.count - 1
                types[type].navigations[navigation].constraints.append(NavigationProperty.JoinColumn(
                    local: attributes["Property"] ?? "", remote: attributes["ReferencedProperty"] ?? ""))
            case ("EntityContainer", "Schema"):
                containerName = attributes["Name"] ?? ""
            case ("EntitySet", "EntityContainer"):
                sets.append(RawSet(name: attributes["Name"] ?? "", entityType: attributes["EntityType"] ?? ""))
            case ("NavigationPropertyBinding", "EntitySet"):
                sets[sets.count - 1].bindings.append((attributes["Path"] ?? "", attributes["Target"] ?? ""))
            default:
                break
            }
        }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            path.removeLast()
        }

        func model() throws -> ServiceModel {
            guard !namespaces.isEmpty else { throw MetadataReader.Failure(description: "the document has no Schema") }
            let builder = ModelBuilderV4(types: types.map(inherit), sets: sets, aliases: aliases, enumTypes: enumTypes)
            // A model names one namespace: the one its entity types are in (a service may keep its
            // container in a schema of its own).
            let namespace = types.first?.namespace ?? namespaces[0]
            return ServiceModel(serviceName: "", namespace: namespace, containerName: containerName,
                                entityTypes: builder.entityTypes(), entitySets: builder.entitySets(),
                                associations: builder.associations())
        }

        /// A type with its base types' keys, properties and navigation properties before its own.
        private func inherit(_ type: RawType) -> RawType {
            var result = type
            var seen: Set<String> = [type.qualifiedName]
            var base = type.baseType.map(resolve)
            while let name = base, seen.insert(name).inserted, let parent = types.first(where: { $0.qualifiedName == name }) {
                if result.keys.isEmpty { result.keys = parent.keys }
                result.properties = parent.properties + result.properties
                result.navigations = parent.navigations + result.navigations
                base = parent.baseType.map(resolve)
            }
            return result
        }

        private func resolve(_ name: String) -> String {
            ModelBuilderV4.resolve(name, aliases: aliases)
        }
    }
}
