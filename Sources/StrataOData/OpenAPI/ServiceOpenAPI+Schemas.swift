import StrataCore
import StrataIdentity

extension ServiceOpenAPI {
    /// Component names: the entity as answered, the bodies that create and change one, and the
    /// answers that wrap one entity or a page of them.
    static func entityName(_ set: EntitySet) -> String { set.entityTypeName }
    static func createName(_ set: EntitySet) -> String { set.entityTypeName + ".create" }
    static func updateName(_ set: EntitySet) -> String { set.entityTypeName + ".update" }
    static func singleName(_ set: EntitySet) -> String { set.entityTypeName + ".single" }
    static func collectionName(_ set: EntitySet) -> String { set.entityTypeName + ".collection" }

    /// The error body, and V2's `__metadata` and `__deferred` objects.
    func addSharedSchemas(to document: inout OpenAPIDocument) {
        // V2 writes the message as {lang, value}, V4 as a string; errors raised before the service's
        // version is known (authentication, an unknown service) are V2's, so both are allowed.
        let message = OpenAPISchema(anyOf: [.string(), .object([("lang", .string()), ("value", .string())], required: ["value"])])
        document.components.schemas["ODataError"] = .object([
            ("error", .object([("code", .string()), ("message", message), ("target", .string())], required: ["code", "message"])),
        ], required: ["error"], description: "An OData error body; the status says what kind of error it is.")
        guard !isV4 else { return }
        document.components.schemas["EntityMetadata"] = .object([
            ("uri", .string("The entity's URL.")), ("type", .string("The entity's type, qualified.")),
            ("etag", .string("The entity's ETag, for If-Match.")),
        ], description: "Verbose JSON's metadata of an entity.")
        document.components.schemas["Deferred"] = .object([
            ("__deferred", .object([("uri", .string())], required: ["uri"])),
        ], required: ["__deferred"], description: "A navigation property that was not expanded: where its entities are.")
    }

    func addSchemas(of set: EntitySet, to document: inout OpenAPIDocument) {
        let type = model.entityType(of: set)
        document.components.schemas[Self.entityName(set)] = entitySchema(set, type)
        document.components.schemas[Self.collectionName(set)] = collectionSchema(set)
        if !isV4 {
            document.components.schemas[Self.singleName(set)] = .object([("d", .reference(Self.entityName(set)))], required: ["d"])
        }
        if capabilities.allows(.insert, on: set.name) {
            document.components.schemas[Self.createName(set)] = bodySchema(type, creating: true)
        }
        if capabilities.allows(.update, on: set.name) {
            document.components.schemas[Self.updateName(set)] = bodySchema(type, creating: false)
        }
    }

    /// The schema of an entity's answer. No member is required: `$select` answers fewer.
    private func entitySchema(_ set: EntitySet, _ type: EntityType) -> OpenAPISchema {
        var members: [(String, OpenAPISchema)] = []
        if isV4 {
            members.append(("@odata.etag", .string("The entity's ETag, for If-Match.")))
        } else {
            members.append(("__metadata", .reference("EntityMetadata")))
        }
        for property in type.properties { members.append((property.name, valueSchema(property))) }
        for navigation in type.navigationProperties {
            guard let target = model.entitySet(named: navigation.targetSet), readableSets.contains(target.name) else { continue }
            members.append((navigation.name, navigationSchema(navigation, target)))
        }
        return .object(members, description: "An entity of \(set.name)\(set.isReadOnly ? " (read-only: \(set.readOnlyReason ?? "a view"))" : "").")
    }

    /// A navigation property in an answer: expanded (`$expand`) or, in V2, deferred.
    private func navigationSchema(_ navigation: NavigationProperty, _ target: EntitySet) -> OpenAPISchema {
        let entity = OpenAPISchema.reference(Self.entityName(target))
        // Only a 0..1 end can be null when expanded; a required one (1) always has its entity.
        let optional = navigation.multiplicity == .zeroOrOne
        if isV4 {
            switch navigation.multiplicity {
            case .many: return .array(of: entity)
            case .zeroOrOne: return entity.nullable
            case .one: return entity
            }
        }
        let deferred = OpenAPISchema.reference("Deferred")
        if navigation.multiplicity == .many {
            return OpenAPISchema(anyOf: [deferred, .object([("results", .array(of: entity))], required: ["results"]), .array(of: entity)])
        }
        return OpenAPISchema(anyOf: [deferred, entity] + (optional ? [OpenAPISchema(type: .null)] : []))
    }

    /// A page of entities: V2's `{"d":{"results":[…],"__count","__next"}}`, V4's `{"value":[…]}` with `@odata.*`.
    private func collectionSchema(_ set: EntitySet) -> OpenAPISchema {
        let entities = OpenAPISchema.array(of: .reference(Self.entityName(set)))
        if isV4 {
            return .object([
                ("@odata.context", .string()), ("@odata.count", OpenAPISchema(type: .integer)),
                ("value", entities),
                ("@odata.nextLink", .string("The next page, when there is one.")),
                ("@odata.deltaLink", .string("Where the changes since this read are (Prefer: odata.track-changes).")),
            ], required: ["value"])
        }
        return .object([
            ("d", .object([
                ("__count", OpenAPISchema(type: .string, description: "The number of matching entities ($inlinecount=allpages).")),
                ("results", entities),
                ("__next", .string("The next page, when there is one.")),
                ("__delta", .string("Where the changes since this read are.")),
            ], required: ["results"])),
        ], required: ["d"])
    }

    /// The body of an insert (`creating`) or an update: the properties a client may give. An insert
    /// must give the non-nullable ones the database does not fill; nothing else is accepted.
    private func bodySchema(_ type: EntityType, creating: Bool) -> OpenAPISchema {
        var members: [(String, OpenAPISchema)] = []
        var required: [String] = []
        for property in type.properties {
            guard GeneratedValues.acceptsClientValue(property, of: type, allowClientKeys: allowClientKeys) else { continue }
            // Keys name the entity in an update's URL; a body that repeats them may not change them.
            if !creating, type.keyNames.contains(property.name) { continue }
            members.append((property.name, valueSchema(property)))
            if creating, !property.isNullable, !property.hasDefault, !property.isServerGenerated { required.append(property.name) }
        }
        return .object(members, required: required, additionalProperties: false,
                       description: creating ? "A new entity of \(type.name)." : "New values of some properties of \(type.name).")
    }
}

extension OpenAPISchema {
    package init(anyOf: [OpenAPISchema], description: String? = nil) {
        self.init(description: description)
        self.anyOf = anyOf
    }
}
