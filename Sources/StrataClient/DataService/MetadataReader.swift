import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import StrataCore

extension DataService {
    /// The service's Entity Data Model, read from `$metadata`: entity types with their properties'
    /// EDM types, keys and navigation properties, entity sets and associations.
    ///
    /// Both CSDL 2.0 (V2) and CSDL 4.0 (V4, from Strata or any other V4 service) are read; a V4
    /// model's associations are made from its navigation properties' partners and referential
    /// constraints, and its types are mapped as ``EDMPrimitiveType/init(v4Name:)`` says.
    ///
    /// With it, ``Entity/value(_:in:)`` reads every property as its declared type, which the JSON alone
    /// cannot say (an `Edm.Int64` and an `Edm.String` are both JSON strings).
    public func model() async throws(StrataError) -> ServiceModel {
        let response = try await send(StrataRequest(.get, rootPath + "$metadata", headers: ["Accept": "application/xml"]))
        do {
            var model = try MetadataReader.read(Data(response.body))
            model.serviceName = rootURL.lastPathComponent
            await models.remember(model)
            return model
        } catch let error as StrataError {
            throw error
        } catch {
            throw ResponseReader.invalid(response, "The $metadata document cannot be read: \(error)")
        }
    }
}

extension Entity {
    /// A property read as the EDM type the service's model declares for it.
    ///
    /// - Throws: ``StrataError/Kind/decoding`` when the entity's `__metadata.type` or the property is
    ///   not in the model, or the value does not fit the declared type.
    public func value(_ name: String, in model: ServiceModel) throws(StrataError) -> ODataValue {
        guard let typeName = type, let entityType = model.entityTypes.first(where: { $0.qualifiedName == typeName }) else {
            throw StrataError(.decoding, url: uri, message: "The model has no entity type \(type ?? "(the entity has no __metadata.type)")")
        }
        guard let property = entityType.property(named: name) else {
            throw StrataError(.decoding, url: uri, message: "\(entityType.name) has no property \(name)")
        }
        return try value(name, as: property.type)
    }
}

/// Reads the EDMX document that `$metadata` serves: CSDL 1.0–2.0 as OData V2 uses it, or CSDL 4.0
/// (``MetadataReaderV4``), told apart by the namespace of the document's elements.
enum MetadataReader {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The namespace of CSDL 4.0's elements (`…/edm`) and of its `Edmx` wrapper (`…/edmx`).
    static let v4Namespace = "http://docs.oasis-open.org/odata/ns/edm"

    static func read(_ data: Data) throws -> ServiceModel {
        if String(decoding: data.prefix(4096), as: UTF8.self).contains(v4Namespace) {
            return try MetadataReaderV4.read(data)
        }
        let handler = Handler()
        try parse(data, with: handler)
        return try handler.model()
    }

    static func parse(_ data: Data, with handler: some XMLParserDelegate) throws {
        let parser = XMLParser(data: data)
        parser.delegate = handler
        guard parser.parse() else {
            throw Failure(description: parser.parserError.map { "\($0)" } ?? "malformed XML")
        }
    }

    /// Collects the schema's elements as the parser meets them.
    private final class Handler: NSObject, XMLParserDelegate {
        var namespace = ""
        var containerName = ""
        var types: [(name: String, keys: [String], properties: [EntityProperty], navigations: [(name: String, relationship: String, from: String, to: String)])] = []
        var associations: [(name: String, ends: [Association.End], principal: (role: String, columns: [String]), dependent: (role: String, columns: [String]))] = []
        var sets: [EntitySet] = []
        private var path: [String] = []

        func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            let name = element.split(separator: ":").last.map(String.init) ?? element
            let parent = path.last
            path.append(name)
            switch (name, parent) {
            case ("Schema", _):
                namespace = attributes["Namespace"] ?? namespace
            case ("EntityContainer", _):
                containerName = attributes["Name"] ?? ""
            case ("EntityType", _):
                types.append((attributes["Name"] ?? "", [], [], []))
            case ("PropertyRef", "Key"):
                types[types.count - 1].keys.append(attributes["Name"] ?? "")
            case ("Property", "EntityType"):
                types[types.count - 1].properties.append(EntityProperty(
                    name: attributes["Name"] ?? "",
                    type: EDMPrimitiveType(rawValue: attributes["Type"] ?? "") ?? .string,
                    isNullable: attributes["Nullable"] != "false",
                    maxLength: attributes["MaxLength"].flatMap { Int($0) },
                    isFixedLength: attributes["FixedLength"] == "true",
                    precision: attributes["Precision"].flatMap { Int($0) },
                    scale: attributes["Scale"].flatMap { Int($0) },
                    isServerGenerated: attributes.contains { $0.key.hasSuffix("StoreGeneratedPattern") && $0.value == "Identity" }))
            case ("NavigationProperty", "EntityType"):
                types[types.count - 1].navigations.append((attributes["Name"] ?? "", attributes["Relationship"] ?? "",
                                                           attributes["FromRole"] ?? "", attributes["ToRole"] ?? ""))
            case ("Association", _):
                associations.append((attributes["Name"] ?? "", [], ("", []), ("", [])))
            case ("End", "Association"):
                associations[associations.count - 1].ends.append(Association.End(
                    role: attributes["Role"] ?? "", entityType: attributes["Type"] ?? "",
                    multiplicity: Multiplicity(rawValue: attributes["Multiplicity"] ?? "") ?? .zeroOrOne))
            case ("Principal", _):
                associations[associations.count - 1].principal.role = attributes["Role"] ?? ""
            case ("Dependent", _):
                associations[associations.count - 1].dependent.role = attributes["Role"] ?? ""
            case ("PropertyRef", "Principal"):
                associations[associations.count - 1].principal.columns.append(attributes["Name"] ?? "")
            case ("PropertyRef", "Dependent"):
                associations[associations.count - 1].dependent.columns.append(attributes["Name"] ?? "")
            case ("EntitySet", "EntityContainer"):
                let type = attributes["EntityType"] ?? ""
                sets.append(EntitySet(name: attributes["Name"] ?? "", entityTypeName: String(type.split(separator: ".").last ?? "")))
            default:
                break
            }
        }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            path.removeLast()
        }

        func model() throws -> ServiceModel {
            guard !namespace.isEmpty else { throw Failure(description: "the document has no Schema") }
            let built = associations.map { raw -> Association in
                let principal = raw.ends.first { $0.role == raw.principal.role } ?? raw.ends.first
                let dependent = raw.ends.first { $0.role == raw.dependent.role } ?? raw.ends.last
                return Association(name: raw.name,
                                   principal: principal ?? Association.End(role: "", entityType: "", multiplicity: .one),
                                   dependent: dependent ?? Association.End(role: "", entityType: "", multiplicity: .many),
                                   principalColumns: raw.principal.columns, dependentColumns: raw.dependent.columns)
            }
            let entityTypes = types.map { raw in
                EntityType(name: raw.name, namespace: namespace, properties: raw.properties, keyNames: raw.keys,
                           navigationProperties: raw.navigations.compactMap { navigation($0, associations: built) })
            }
            return ServiceModel(serviceName: "", namespace: namespace, containerName: containerName,
                                entityTypes: entityTypes, entitySets: sets, associations: built)
        }

        /// A navigation property with its target set and join columns, from its association.
        private func navigation(_ raw: (name: String, relationship: String, from: String, to: String),
                                associations: [Association]) -> NavigationProperty? {
            let associationName = String(raw.relationship.split(separator: ".").last ?? "")
            guard let association = associations.first(where: { $0.name == associationName }) else { return nil }
            let toPrincipal = association.principal.role == raw.to
            let target = toPrincipal ? association.principal : association.dependent
            let targetType = String(target.entityType.split(separator: ".").last ?? "")
            let pairs = zip(association.dependentColumns, association.principalColumns).map {
                toPrincipal ? NavigationProperty.JoinColumn(local: $0, remote: $1) : NavigationProperty.JoinColumn(local: $1, remote: $0)
            }
            return NavigationProperty(name: raw.name, relationship: raw.relationship, fromRole: raw.from, toRole: raw.to,
                                      targetSet: sets.first { $0.entityTypeName == targetType }?.name ?? targetType,
                                      multiplicity: target.multiplicity, joinColumns: pairs)
        }
    }
}
