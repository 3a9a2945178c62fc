import StrataCore
import StrataIdentity

/// The service's `$metadata` for OData V4 clients: CSDL 4.0 XML from the same model as V2's
/// document. Associations become navigation properties with partners and referential
/// constraints, the container binds each navigation property to the set it leads to, and V2's
/// types are named as V4 names them (`Edm.DateTime` is `Edm.DateTimeOffset`).
///
/// The document speaks to its caller: each entity set says whether this caller may insert, update
/// and delete (Capabilities' restrictions), properties no write of this caller can set are
/// `Core.Permissions` Read, generated ones `Core.Computed`, and keys a client gives `Core.Immutable`.
package enum MetadataDocumentV4 {
    static let edmxNamespace = "http://docs.oasis-open.org/odata/ns/edmx"
    static let edmNamespace = "http://docs.oasis-open.org/odata/ns/edm"
    static let coreVocabulary = "https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Core.V1.xml"
    static let capabilitiesVocabulary = "https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Capabilities.V1.xml"

    /// - Parameters:
    ///   - allowClientKeys: the service lets inserts give generated keys (``ServiceSettings/allowClientKeys``).
    ///   - capabilities: what the caller may write; every write unless given.
    package static func xml(for model: ServiceModel, allowClientKeys: Bool = false, capabilities: WriteCapabilities? = nil) -> String {
        let capabilities = capabilities ?? .unrestricted(model)
        var xml = XMLWriter()
        xml.start("edmx:Edmx", [("Version", "4.0"), ("xmlns:edmx", edmxNamespace)])
        xml.start("edmx:Reference", [("Uri", coreVocabulary)])
        xml.empty("edmx:Include", [("Namespace", "Org.OData.Core.V1"), ("Alias", "Core")])
        xml.end()
        xml.start("edmx:Reference", [("Uri", capabilitiesVocabulary)])
        xml.empty("edmx:Include", [("Namespace", "Org.OData.Capabilities.V1"), ("Alias", "Capabilities")])
        xml.end()
        xml.start("edmx:DataServices")
        xml.start("Schema", [("Namespace", model.namespace), ("xmlns", edmNamespace)])
        for type in model.entityTypes {
            // Strata serves each table as one set of its own type.
            let settable = model.entitySets.contains { $0.entityTypeName == type.name && capabilities.canSetValues(of: $0.name) }
            writeEntityType(type, model: model, allowClientKeys: allowClientKeys, settable: settable, into: &xml)
        }
        xml.start("EntityContainer", [("Name", model.containerName)])
        for set in model.entitySets {
            let type = model.entityType(of: set)
            let bindings = type.navigationProperties.filter { model.entitySet(named: $0.targetSet) != nil }
            xml.start("EntitySet", [("Name", set.name), ("EntityType", "\(model.namespace).\(set.entityTypeName)")])
            for navigation in bindings {
                xml.empty("NavigationPropertyBinding", [("Path", navigation.name), ("Target", navigation.targetSet)])
            }
            for (term, property, action) in restrictions {
                xml.start("Annotation", [("Term", term)])
                xml.start("Record")
                xml.empty("PropertyValue", [("Property", property), ("Bool", String(capabilities.allows(action, on: set.name)))])
                xml.end()
                xml.end()
            }
            xml.end()
        }
        xml.end() // EntityContainer
        xml.end() // Schema
        xml.end() // DataServices
        xml.end() // Edmx
        return xml.text
    }

    /// Capabilities' restriction terms, the property each sets, and the action it answers for.
    private static let restrictions: [(String, String, TableAction)] = [
        ("Capabilities.InsertRestrictions", "Insertable", .insert),
        ("Capabilities.UpdateRestrictions", "Updatable", .update),
        ("Capabilities.DeleteRestrictions", "Deletable", .delete),
    ]

    /// - Parameter settable: some write of this caller can give the type's properties values.
    private static func writeEntityType(_ type: EntityType, model: ServiceModel, allowClientKeys: Bool, settable: Bool,
                                        into xml: inout XMLWriter) {
        xml.start("EntityType", [("Name", type.name)])
        xml.start("Key")
        for key in type.keyNames { xml.empty("PropertyRef", [("Name", key)]) }
        xml.end()
        for property in type.properties {
            // CSDL wants keys non-nullable; an inferred key of a view may still hold nulls (see ModelBuilder).
            let nullable = property.isNullable && !type.keyNames.contains(property.name)
            var attributes = [("Name", property.name), ("Type", property.type.v4Name)]
            if !nullable { attributes.append(("Nullable", "false")) }
            if property.type == .string || property.type == .binary, let maxLength = property.maxLength {
                attributes.append(("MaxLength", String(maxLength)))
            }
            if property.type == .decimal {
                if let precision = property.precision { attributes.append(("Precision", String(precision))) }
                if let scale = property.scale { attributes.append(("Scale", String(scale))) }
            }
            if property.type == .dateTime || property.type == .dateTimeOffset || property.type == .time {
                // Microseconds, as the databases store them; V4's default precision is whole seconds.
                attributes.append(("Precision", "6"))
            }
            let annotations = propertyAnnotations(property, of: type, allowClientKeys: allowClientKeys, settable: settable)
            guard !annotations.isEmpty else {
                xml.empty("Property", attributes)
                continue
            }
            xml.start("Property", attributes)
            for annotation in annotations { xml.empty("Annotation", annotation) }
            xml.end()
        }
        for navigation in type.navigationProperties {
            guard let targetSet = model.entitySet(named: navigation.targetSet) else { continue }
            let targetType = "\(model.namespace).\(targetSet.entityTypeName)"
            var attributes = [("Name", navigation.name),
                              ("Type", navigation.multiplicity == .many ? "Collection(\(targetType))" : targetType)]
            if navigation.multiplicity == .one { attributes.append(("Nullable", "false")) }
            if let partner = partner(of: navigation, in: model) { attributes.append(("Partner", partner.name)) }
            // The side that holds the foreign key names it: each local column refers to a remote one.
            guard navigation.multiplicity != .many, LinkSides.holdsForeignKey(navigation, model: model), !navigation.joinColumns.isEmpty else {
                xml.empty("NavigationProperty", attributes)
                continue
            }
            xml.start("NavigationProperty", attributes)
            for column in navigation.joinColumns {
                xml.empty("ReferentialConstraint", [("Property", column.local), ("ReferencedProperty", column.remote)])
            }
            xml.end()
        }
        xml.end()
    }

    /// The annotations of one property, as attribute lists of `Annotation` elements.
    private static func propertyAnnotations(_ property: EntityProperty, of type: EntityType, allowClientKeys: Bool,
                                            settable: Bool) -> [[(String, String)]] {
        // A value the database assigns, which no write may give.
        if property.isServerGenerated, !GeneratedValues.acceptsClientValue(property, of: type, allowClientKeys: allowClientKeys) {
            return [[("Term", "Core.Computed"), ("Bool", "true")]]
        }
        // Nothing this caller may do sets it: it reads the value only.
        guard settable else {
            return [[("Term", "Core.Permissions"), ("EnumMember", "Core.Permission/Read")]]
        }
        // The database fills it when an insert leaves it out (or, in V4, sends null for it).
        if property.hasDefault, !property.isServerGenerated {
            return [[("Term", "Core.ComputedDefaultValue"), ("Bool", "true")]]
        }
        // A key the client gives when it creates the entity, and no update changes.
        if type.keyNames.contains(property.name) {
            return [[("Term", "Core.Immutable"), ("Bool", "true")]]
        }
        return []
    }

    /// The navigation property of the related type that walks the same association back.
    private static func partner(of navigation: NavigationProperty, in model: ServiceModel) -> NavigationProperty? {
        guard let set = model.entitySet(named: navigation.targetSet) else { return nil }
        return model.entityType(of: set).navigationProperties.first {
            $0.relationship == navigation.relationship && $0.fromRole == navigation.toRole && $0.toRole == navigation.fromRole
        }
    }
}
