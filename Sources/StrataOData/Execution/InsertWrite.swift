import StrataCore
import StrataStorage
import StrataIdentity

/// POST to a collection: creates the entity and, for a deep insert, the related entities it
/// carries inline, in one transaction; answers 201 with the whole created tree as stored.
///
/// Related entities the new one refers to (`PersonCar.Car`) are created or found first so their
/// keys can fill its foreign key; entities that refer to it (`Person.PersonCar`) come after it and
/// take its key. Bindings (`{"__metadata":{"uri":"Car(5)"}}`) link existing entities instead.
struct InsertWrite: PreparedWrite {
    let operation: WriteOperation
    let root: InsertNode

    /// A checked entity to create, with its related content.
    struct Node: Sendable {
        var set: EntitySet
        var type: EntityType
        var values: [String: ODataValue]
        var access: RowAccess
        var relations: [Relation]
    }

    struct Relation: Sendable {
        var navigation: NavigationProperty
        var targetSet: EntitySet
        var targetType: EntityType
        /// The new entity holds the foreign key, so the related one is created or found first.
        var foreignKeyHere: Bool
        var items: [Item]
        /// `"Car": null`: the new entity refers to none.
        var explicitNull: Bool
    }

    package indirect enum Item: Sendable {
        case new(InsertNode)
        /// An existing entity; `holderAccess` is the update right on it when it takes the foreign key.
        case binding(ResolvedPath, holderAccess: RowAccess?)
    }

    static func prepare(_ operation: WriteOperation, payload: EntityPayload) throws -> InsertWrite {
        let target = operation.path.target
        // POST Person(1)/PersonCar: the parent's key fills the new entity's foreign key.
        let fromParent = Set(target.via?.joinColumns.map(\.remote) ?? [])
        let root = try node(operation, set: target.set, type: target.type, payload: payload, supplied: fromParent, path: target.set.name)
        return InsertWrite(operation: operation, root: root)
    }

    private static func node(_ operation: WriteOperation, set: EntitySet, type: EntityType, payload: EntityPayload,
                             supplied: Set<String>, path: String) throws -> InsertNode {
        let model = operation.call.service.model
        if let reason = set.readOnlyReason {
            throw ODataError.methodNotAllowed("\(path) cannot be created: \(set.name) is read-only (\(reason)).")
        }
        var supplied = supplied
        var values = payload.values
        try GeneratedValues.checkInsert(type, values: &values, allowClientKeys: operation.call.service.settings.allowClientKeys, path: path)
        var relations: [Relation] = []
        for (name, content) in payload.navigations {
            guard let navigation = type.navigationProperty(named: name), let targetSet = model.entitySet(named: navigation.targetSet) else { continue }
            let targetType = model.entityType(of: targetSet)
            let foreignKeyHere = LinkSides.holdsForeignKey(navigation, model: model)
            var relation = Relation(navigation: navigation, targetSet: targetSet, targetType: targetType,
                                    foreignKeyHere: foreignKeyHere, items: [], explicitNull: false)
            let entities: [InlineEntity]
            switch content {
            case .single(nil):
                guard foreignKeyHere else { continue }
                for pair in navigation.joinColumns {
                    guard let property = type.property(named: pair.local), property.isNullable else {
                        throw ODataError.badRequest("\(path)/\(name) cannot be null: \(pair.local) is required.")
                    }
                    values[pair.local] = .null
                }
                relation.explicitNull = true
                entities = []
            case .single, .many: entities = content.entities
            }
            for (index, entity) in entities.enumerated() {
                let itemPath = navigation.multiplicity == .many ? "\(path)/\(name)[\(index)]" : "\(path)/\(name)"
                switch entity {
                case .new(let child):
                    let childSupplied = foreignKeyHere ? [] : Set(navigation.joinColumns.map(\.remote))
                    relation.items.append(.new(try node(operation, set: targetSet, type: targetType, payload: child,
                                                               supplied: childSupplied, path: itemPath)))
                case .binding(let uri):
                    let resolved = try operation.request.reference(uri)
                    guard resolved.target.set.name == targetSet.name else {
                        throw ODataError.badRequest("\(itemPath) must refer to an entity of \(targetSet.name), not '\(uri.prefix(200))'.")
                    }
                    var holderAccess: RowAccess?
                    if !foreignKeyHere {
                        if let reason = targetSet.readOnlyReason {
                            throw ODataError.methodNotAllowed("\(itemPath) cannot be linked: \(targetSet.name) is read-only (\(reason)).")
                        }
                        holderAccess = try operation.rights(.update, targetSet)
                    }
                    relation.items.append(.binding(resolved, holderAccess: holderAccess))
                }
            }
            if foreignKeyHere { supplied.formUnion(navigation.joinColumns.map(\.local)) }
            relations.append(relation)
        }
        try RequiredProperties.check(type, values: values, supplied: supplied, path: path)
        let access = try operation.rights(.insert, set)
        return InsertNode(set: set, type: type, values: values, access: access, relations: relations)
    }

    func execute(in connection: any DatabaseConnection) async throws -> WriteResult {
        let call = operation.call
        let writer = EntityWriter(service: call.service, connection: connection)
        var supplied: [String: ODataValue] = [:]
        let steps = operation.path.steps[...]
        if let via = operation.path.target.via {
            let parentSteps = steps.dropLast()
            let parentType = parentSteps[parentSteps.endIndex - 1].type
            let columns = via.joinColumns.compactMap { parentType.property(named: $0.local) }
            guard let parent = try await writer.fetch(parentSteps, columns: columns) else {
                throw try await WriteOperation.notFound(parentSteps, writer: writer)
            }
            for (pair, value) in zip(via.joinColumns, parent) { supplied[pair.remote] = value }
        }
        let created = try await insert(root, supplied: supplied, writer: writer)
        let relative = EntityWriter.relativeURI(set: root.set, type: root.type, row: created.entity.values)
        let tag = EntityTag(type: root.type, values: created.entity.values)
        return .created(created.entity, shape: created.shape, tag: tag, entityPath: relative)
    }

    private func insert(_ node: InsertNode, supplied: [String: ODataValue], writer: EntityWriter) async throws -> (entity: EntityRow, shape: EntityShape) {
        var values = node.values
        for (column, value) in supplied { values[column] = value }
        var expanded: [String: ExpandedEntities] = [:]
        var shapes: [String: EntityShape] = [:]

        // Entities this one refers to: created or found first, their keys fill its foreign key.
        for relation in node.relations where relation.foreignKeyHere && !relation.explicitNull {
            guard let item = relation.items.first else { continue }
            let related: (entity: EntityRow, shape: EntityShape)
            switch item {
            case .new(let child):
                related = try await insert(child, supplied: [:], writer: writer)
            case .binding(let path, _):
                guard let row = try await writer.fetch(path.steps[...], columns: relation.targetType.properties) else {
                    throw try await WriteOperation.notFound(path.steps[...], writer: writer)
                }
                related = (EntityRow(values: row), Self.plainShape(relation.targetSet, relation.targetType, in: writer.service))
            }
            for pair in relation.navigation.joinColumns {
                values[pair.local] = EntityWriter.value(pair.remote, of: relation.targetType, in: related.entity.values)
            }
            expanded[relation.navigation.name] = .single(related.entity)
            shapes[relation.navigation.name] = related.shape
        }
        for relation in node.relations where relation.explicitNull {
            expanded[relation.navigation.name] = .single(nil)
            shapes[relation.navigation.name] = Self.plainShape(relation.targetSet, relation.targetType, in: writer.service)
        }

        let ordered = node.type.properties.compactMap { property in values[property.name].map { (column: property.name, value: $0) } }
        let row = try await writer.insert(into: node.set, type: node.type, values: ordered)
        let key = EntityWriter.key(of: node.type, in: row)
        guard try await writer.allows(node.access, action: .insert, set: node.set, type: node.type, key: key) else {
            throw ODataError.forbidden("The new \(node.set.name) is outside the rows you may create.")
        }

        // Entities that refer to this one: created after it, or relinked to it.
        for relation in node.relations where !relation.foreignKeyHere {
            let assignments = relation.navigation.joinColumns.map { pair in
                (column: pair.remote, value: EntityWriter.value(pair.local, of: node.type, in: row))
            }
            var children: [EntityRow] = []
            var childShape: EntityShape?
            for item in relation.items {
                switch item {
                case .new(let child):
                    let created = try await insert(child, supplied: Dictionary(assignments, uniquingKeysWith: { _, b in b }), writer: writer)
                    children.append(created.entity)
                    childShape = childShape ?? created.shape
                case .binding(let path, let access):
                    let relinked = try await LinkWrite.relink(path, set: relation.targetSet, type: relation.targetType,
                                                              assignments: assignments, access: access ?? .unrestricted, writer: writer)
                    children.append(EntityRow(values: relinked))
                }
            }
            expanded[relation.navigation.name] = relation.navigation.multiplicity == .many ? .collection(children) : .single(children.first)
            shapes[relation.navigation.name] = childShape ?? Self.plainShape(relation.targetSet, relation.targetType, in: writer.service)
        }
        let shape = shapes.isEmpty
            ? Self.plainShape(node.set, node.type, in: writer.service)
            : EntityShape(set: node.set, type: node.type, properties: node.type.properties,
                          navigations: node.type.navigationProperties.map { ($0, shapes[$0.name]) })
        return (EntityRow(values: row, expanded: expanded), shape)
    }

    /// The shape of an entity whose links are all deferred: the one prepared when the service was
    /// loaded (``WholeEntityRead``), rather than a new one per entity, which cost a single POST a
    /// dozen allocations.
    static func plainShape(_ set: EntitySet, _ type: EntityType, in service: ODataService) -> EntityShape {
        if let prepared = service.wholeEntityReads[set.name]?.shape, prepared.type.qualifiedName == type.qualifiedName {
            return prepared
        }
        return EntityShape(set: set, type: type, properties: type.properties)
    }
}

typealias InsertNode = InsertWrite.Node
