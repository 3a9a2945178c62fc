import StrataCore
import StrataIdentity

/// The service's `$metadata`: EDMX 1.0 wrapping a CSDL 2.0 schema, as WCF Data Services 2.0 served it,
/// so that standard OData V2 client libraries can load it and work from it.
package enum MetadataDocument {
    static let edmxNamespace = "http://schemas.microsoft.com/ado/2007/06/edmx"
    static let metadataNamespace = "http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"
    static let dataNamespace = "http://schemas.microsoft.com/ado/2007/08/dataservices"
    /// CSDL 2.0: needed because foreign key columns appear as properties in referential constraints.
    static let csdlNamespace = "http://schemas.microsoft.com/ado/2008/09/edm"
    static let annotationNamespace = "http://schemas.microsoft.com/ado/2009/02/edm/annotation"
    /// SAP's OData V2 annotations, which V2 clients (SAPUI5 and others) read to know what a write may set.
    static let sapNamespace = "http://www.sap.com/Protocols/SAPData"

    /// - Parameter allowClientKeys: the service lets inserts give generated keys (``ServiceSettings/allowClientKeys``).
    package static func xml(for model: ServiceModel, allowClientKeys: Bool = false) -> String {
        var xml = XMLWriter()
        xml.start("edmx:Edmx", [("Version", "1.0"), ("xmlns:edmx", edmxNamespace)])
        xml.start("edmx:DataServices", [("xmlns:m", metadataNamespace), ("m:DataServiceVersion", "2.0")])
        xml.start("Schema", [("Namespace", model.namespace), ("xmlns:d", dataNamespace), ("xmlns:m", metadataNamespace),
                             ("xmlns:annotation", annotationNamespace), ("xmlns:sap", sapNamespace), ("xmlns", csdlNamespace)])
        for type in model.entityTypes {
            writeEntityType(type, allowClientKeys: allowClientKeys, into: &xml)
        }
        for association in model.associations {
            writeAssociation(association, into: &xml)
        }
        xml.start("EntityContainer", [("Name", model.containerName), ("m:IsDefaultEntityContainer", "true")])
        for set in model.entitySets {
            xml.empty("EntitySet", [("Name", set.name), ("EntityType", "\(model.namespace).\(set.entityTypeName)")])
        }
        for association in model.associations {
            xml.start("AssociationSet", [("Name", association.name), ("Association", "\(model.namespace).\(association.name)")])
            xml.empty("End", [("Role", association.principal.role), ("EntitySet", setName(association.principal.entityType))])
            xml.empty("End", [("Role", association.dependent.role), ("EntitySet", setName(association.dependent.entityType))])
            xml.end()
        }
        xml.end() // EntityContainer
        xml.end() // Schema
        xml.end() // DataServices
        xml.end() // Edmx
        return xml.text
    }

    /// Entity sets are named after their types (one set per table).
    private static func setName(_ qualifiedType: String) -> String {
        String(qualifiedType.split(separator: ".").last ?? Substring(qualifiedType))
    }

    private static func writeEntityType(_ type: EntityType, allowClientKeys: Bool, into xml: inout XMLWriter) {
        xml.start("EntityType", [("Name", type.name)])
        xml.start("Key")
        for key in type.keyNames { xml.empty("PropertyRef", [("Name", key)]) }
        xml.end()
        for property in type.properties {
            // CSDL wants keys non-nullable; an inferred key of a view may still hold nulls (see ModelBuilder).
            let nullable = property.isNullable && !type.keyNames.contains(property.name)
            var attributes = [("Name", property.name), ("Type", property.type.rawValue), ("Nullable", nullable ? "true" : "false")]
            if property.type == .string || property.type == .binary {
                if let maxLength = property.maxLength { attributes.append(("MaxLength", String(maxLength))) }
                attributes.append(("FixedLength", property.isFixedLength ? "true" : "false"))
            }
            if property.type == .string { attributes.append(("Unicode", "true")) }
            if property.type == .decimal {
                if let precision = property.precision { attributes.append(("Precision", String(precision))) }
                if let scale = property.scale { attributes.append(("Scale", String(scale))) }
            }
            if property.isServerGenerated {
                // The database assigns it when a create leaves it out; whether a create may give it,
                // and that no update changes it, is what the writes check (GeneratedValues).
                attributes.append(("annotation:StoreGeneratedPattern", "Identity"))
                if !GeneratedValues.acceptsClientValue(property, of: type, allowClientKeys: allowClientKeys) {
                    attributes.append(("sap:creatable", "false"))
                }
                attributes.append(("sap:updatable", "false"))
            }
            xml.empty("Property", attributes)
        }
        for navigation in type.navigationProperties {
            xml.empty("NavigationProperty", [("Name", navigation.name), ("Relationship", navigation.relationship),
                                             ("FromRole", navigation.fromRole), ("ToRole", navigation.toRole)])
        }
        xml.end()
    }

    private static func writeAssociation(_ association: Association, into xml: inout XMLWriter) {
        xml.start("Association", [("Name", association.name)])
        xml.empty("End", [("Role", association.principal.role), ("Type", association.principal.entityType),
                          ("Multiplicity", association.principal.multiplicity.rawValue)])
        xml.empty("End", [("Role", association.dependent.role), ("Type", association.dependent.entityType),
                          ("Multiplicity", association.dependent.multiplicity.rawValue)])
        xml.start("ReferentialConstraint")
        xml.start("Principal", [("Role", association.principal.role)])
        for column in association.principalColumns { xml.empty("PropertyRef", [("Name", column)]) }
        xml.end()
        xml.start("Dependent", [("Role", association.dependent.role)])
        for column in association.dependentColumns { xml.empty("PropertyRef", [("Name", column)]) }
        xml.end()
        xml.end()
        xml.end()
    }
}
