import Foundation
import HTTPTypes
import StrataCore
import StrataSQL

/// PUT (replace), MERGE and PATCH (partial) of one entity, and PUT or DELETE of one property.
///
/// Inside the transaction the entity is read and locked first, its ETag compared with `If-Match`
/// (412 when stale), and only then changed; the answer is 204 with the new ETag.
struct UpdateWrite: PreparedWrite {
    let operation: WriteOperation
    let values: [String: ODataValue]
    /// PUT: properties the body omits return to their default, or null.
    let replace: Bool
    /// To-one navigations re-pointed by a binding in the body (`"Car": {"__metadata":{"uri":"Car(5)"}}`).
    let bindings: [(navigation: NavigationProperty, target: ResolvedPath, targetType: EntityType)]
    let condition: EntityTagCondition?
    let access: RowAccess

    static func prepare(_ operation: WriteOperation, replace: Bool) async throws -> UpdateWrite {
        let target = operation.path.target
        let model = operation.call.service.model
        let payload = try EntityPayloadDecoder(model: model).decode(body: operation.body, as: target.type)
        var bindings: [(navigation: NavigationProperty, target: ResolvedPath, targetType: EntityType)] = []
        for (name, content) in payload.navigations {
            guard let navigation = target.type.navigationProperty(named: name) else { continue }
            guard LinkSides.holdsForeignKey(navigation, model: model), case .single(let single) = content else {
                throw ODataError.badRequest("\(name) cannot be changed inline when updating; create related entities with POST, and link them through $links/\(name).")
            }
            switch single {
            case .binding(let uri)?:
                let resolved = try operation.references.resolveEntity(uri, model: model)
                guard resolved.target.set.name == navigation.targetSet else {
                    throw ODataError.badRequest("\(name) must refer to an entity of \(navigation.targetSet), not '\(uri.prefix(200))'.")
                }
                bindings.append((navigation: navigation, target: resolved, targetType: resolved.target.type))
            case nil:
                throw ODataError.badRequest("To remove the link \(name), send DELETE to \(target.set.name)(key)/$links/\(name).")
            case .new?:
                throw ODataError.badRequest("\(name) cannot be created inline when updating; POST it, then link it with {\"__metadata\":{\"uri\":…}}.")
            }
        }
        if replace {
            for property in target.type.properties
            where !property.isNullable && !property.hasDefault && !property.isServerGenerated
                && payload.values[property.name] == nil && !target.type.keyNames.contains(property.name)
                && !bindings.contains(where: { binding in binding.navigation.joinColumns.contains { $0.local == property.name } }) {
                throw ODataError.badRequest("PUT replaces the whole entity: the property \(property.name) is required (it cannot be null and has no default). Use MERGE or PATCH to change some properties only.")
            }
        }
        return UpdateWrite(operation: operation, values: payload.values, replace: replace, bindings: bindings,
                           condition: try operation.ifMatchCondition(), access: try await operation.authorize(.update, target.set))
    }

    /// `PUT Person(1)/firstName` with `{"firstName":"Ann"}`, `PUT Person(1)/firstName/$value` with the
    /// raw text, or `DELETE` of either to set the property to null.
    static func prepareProperty(_ operation: WriteOperation, property: EntityProperty) async throws -> UpdateWrite {
        let target = operation.path.target
        guard !target.type.keyNames.contains(property.name) else {
            throw ODataError.badRequest("The key property \(property.name) cannot be changed.")
        }
        let path = WriteOperation.describe(operation.path.steps[...])
        var value: ODataValue
        if operation.call.method == .delete {
            value = .null
        } else if case .rawValue = operation.path.terminal {
            value = try rawValue(operation.body, property: property, path: path)
        } else {
            let object = try EntityPayloadDecoder.entityObject(operation.body)
            guard object.count == 1, let json = object[property.name] else {
                throw ODataError.badRequest("Send the property as {\"\(property.name)\": value}.")
            }
            value = try EntityPayloadDecoder(model: operation.call.service.model).decodeValue(json, for: property, path: path)
        }
        try PropertyFacets.check(value, against: property, path: path)
        return UpdateWrite(operation: operation, values: [property.name: value], replace: false, bindings: [],
                           condition: try operation.ifMatchCondition(), access: try await operation.authorize(.update, target.set))
    }

    private static func rawValue(_ body: [UInt8], property: EntityProperty, path: String) throws(ODataError) -> ODataValue {
        if property.type == .binary { return .binary(Data(body)) }
        let text = String(decoding: body, as: UTF8.self)
        if property.type == .string { return .string(text) }
        do {
            return try ODataJSON.decode(.string(text), as: property.type)
        } catch {
            throw .badRequest("The property \(property.name) of \(path): \(error.message).")
        }
    }

    func execute(in connection: any DatabaseConnection) async throws -> WriteResult {
        let target = operation.path.target
        let type = target.type
        let writer = EntityWriter(service: operation.call.service, connection: connection)
        let steps = operation.path.steps[...]
        guard let current = try await writer.fetchLocked(steps) else {
            throw try await WriteOperation.notFound(steps, writer: writer)
        }
        let key = EntityWriter.key(of: type, in: current)
        guard try await writer.allows(access, action: .update, set: target.set, type: type, key: key) else {
            throw ODataError.forbidden("You may not change \(EntityWriter.relativeURI(set: target.set, type: type, row: current)).")
        }
        let currentTag = EntityTag(type: type, values: current)
        if let condition, !condition.matches(currentTag) {
            throw ODataError.preconditionFailed("The entity \(EntityWriter.relativeURI(set: target.set, type: type, row: current)) has changed since its ETag was read (If-Match: \(operation.call.headers[.ifMatch] ?? "")); read it again and retry. Nothing was changed.")
        }
        var assignments = try keyChecked(current: current)
        for binding in bindings {
            guard let related = try await writer.fetch(binding.target.steps[...], columns: binding.targetType.properties) else {
                throw try await WriteOperation.notFound(binding.target.steps[...], writer: writer)
            }
            for pair in binding.navigation.joinColumns {
                assignments.removeAll { $0.column == pair.local }
                assignments.append((pair.local, .value(EntityWriter.value(pair.remote, of: binding.targetType, in: related))))
            }
        }
        if replace {
            let defaults = try await writer.catalogDefaults(of: target.set, type: type)
            for property in type.properties
            where values[property.name] == nil && !type.keyNames.contains(property.name) && !assignments.contains(where: { $0.column == property.name }) {
                // Generated columns cannot be assigned; identity and autoincrement values are kept.
                if property.isServerGenerated { continue }
                assignments.append((property.name, property.hasDefault ? .databaseDefault(defaults[property.name]) : .value(.null)))
            }
        }
        let stored = assignments.isEmpty
            ? current
            : try await writer.update(target.set, type: type, key: key, assignments: assignments)
        guard try await writer.allows(access, action: .update, set: target.set, type: type, key: key) else {
            throw ODataError.forbidden("The change would move \(EntityWriter.relativeURI(set: target.set, type: type, row: current)) outside the rows you may change.")
        }
        return .noContent(etag: EntityTag(type: type, values: stored),
                          entityPath: EntityWriter.relativeURI(set: target.set, type: type, row: stored))
    }

    /// The body's values as assignments; a key property may be repeated unchanged, never changed.
    private func keyChecked(current: [ODataValue]) throws(ODataError) -> [(column: String, value: AssignedValue)] {
        let type = operation.path.target.type
        var assignments: [(column: String, value: AssignedValue)] = []
        for property in type.properties {
            guard let value = values[property.name] else { continue }
            if type.keyNames.contains(property.name) {
                let stored = EntityWriter.value(property.name, of: type, in: current)
                guard value == stored || value.converted(to: property.type) == stored else {
                    throw .badRequest("The key property \(property.name) cannot be changed (it is \(stored), the body says \(value)). Create a new entity instead.")
                }
                continue
            }
            assignments.append((property.name, .value(value)))
        }
        return assignments
    }
}

/// DELETE of one entity: 204, or 409 when other rows still refer to it and the schema does not cascade.
struct DeleteWrite: PreparedWrite {
    let operation: WriteOperation
    let condition: EntityTagCondition?
    let access: RowAccess

    static func prepare(_ operation: WriteOperation) async throws -> DeleteWrite {
        DeleteWrite(operation: operation, condition: try operation.ifMatchCondition(),
                    access: try await operation.authorize(.delete, operation.path.target.set))
    }

    func execute(in connection: any DatabaseConnection) async throws -> WriteResult {
        let target = operation.path.target
        let writer = EntityWriter(service: operation.call.service, connection: connection)
        let steps = operation.path.steps[...]
        guard let current = try await writer.fetchLocked(steps) else {
            throw try await WriteOperation.notFound(steps, writer: writer)
        }
        let uri = EntityWriter.relativeURI(set: target.set, type: target.type, row: current)
        guard try await writer.allows(access, action: .delete, set: target.set, type: target.type,
                                      key: EntityWriter.key(of: target.type, in: current)) else {
            throw ODataError.forbidden("You may not delete \(uri).")
        }
        if let condition, !condition.matches(EntityTag(type: target.type, values: current)) {
            throw ODataError.preconditionFailed("The entity \(uri) has changed since its ETag was read; read it again before deleting it. Nothing was deleted.")
        }
        try await writer.delete(from: target.set, type: target.type, row: current)
        return .noContent(etag: nil, entityPath: uri)
    }
}
