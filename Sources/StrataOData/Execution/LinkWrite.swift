import HTTPTypes
import StrataCore
import StrataSQL
import StrataStorage
import StrataIdentity

/// Changes relationships through `$links`, as OData V2 defines: the foreign key columns of whichever
/// side holds them are set or cleared.
///
/// - `PUT Car(…)`-style `{"uri": …}` to `PersonCar(1)/$links/Car` points a to-one link elsewhere.
/// - `POST {"uri": …}` to `Person(1)/$links/PersonCar` adds an entity to a to-many link.
/// - `DELETE PersonCar(1)/$links/Car` or `Person(1)/$links/PersonCar(2)` removes a link (the foreign
///   key becomes null; 409 when it cannot be null).
struct LinkWrite: PreparedWrite {
    enum Change: Sendable {
        case set(ResolvedPath)
        case remove(key: [ODataValue]?)
    }

    let operation: WriteOperation
    let navigation: NavigationProperty
    let targetSet: EntitySet
    let targetType: EntityType
    let foreignKeyHere: Bool
    let change: Change
    /// Update right on the table whose foreign key changes.
    let access: RowAccess

    /// `target` is the entity to link, as the Request stage resolved it; nil removes the link.
    static func prepare(_ operation: WriteOperation, navigation: NavigationProperty, key: [ODataValue]?,
                        target: ResolvedPath?) throws -> LinkWrite {
        let model = operation.call.service.model
        guard let targetSet = model.entitySet(named: navigation.targetSet) else {
            throw ODataError.notFound("The entity set \(navigation.targetSet) is not available.")
        }
        let targetType = model.entityType(of: targetSet)
        let foreignKeyHere = LinkSides.holdsForeignKey(navigation, model: model)
        let holder = foreignKeyHere ? operation.path.target.set : targetSet
        let change: Change
        if let target {
            change = .set(target)
        } else {
            let holderType = foreignKeyHere ? operation.path.target.type : targetType
            for pair in navigation.joinColumns {
                let column = foreignKeyHere ? pair.local : pair.remote
                if let property = holderType.property(named: column), !property.isNullable {
                    throw ODataError.conflict("The link \(navigation.name) cannot be removed: \(holder.name).\(column) cannot be null. Delete the \(holder.name) entity or link it elsewhere instead.")
                }
            }
            change = .remove(key: key)
        }
        return LinkWrite(operation: operation, navigation: navigation, targetSet: targetSet, targetType: targetType,
                         foreignKeyHere: foreignKeyHere, change: change, access: try operation.rights(.update, holder))
    }

    func execute(in connection: any DatabaseConnection) async throws -> WriteResult {
        let writer = EntityWriter(service: operation.call.service, connection: connection)
        let sourceSteps = operation.path.steps[...]
        let source = operation.path.target
        guard let sourceRow = try await writer.fetchLocked(sourceSteps) else {
            throw try await WriteOperation.notFound(sourceSteps, writer: writer)
        }
        let sourcePath = EntityWriter.relativeURI(set: source.set, type: source.type, row: sourceRow)
        switch change {
        case .set(let targetPath):
            guard let targetRow = try await writer.fetch(targetPath.steps[...], columns: targetType.properties) else {
                throw try await WriteOperation.notFound(targetPath.steps[...], writer: writer)
            }
            if foreignKeyHere {
                let assignments = navigation.joinColumns.map { (column: $0.local, value: EntityWriter.value($0.remote, of: targetType, in: targetRow)) }
                _ = try await Self.relink(sourceSteps, set: source.set, type: source.type, assignments: assignments, access: access, writer: writer, current: sourceRow)
            } else {
                if navigation.multiplicity != .many {
                    // A to-one link held by the other side: the entity linked so far lets go first.
                    try await unlinkCurrent(sourceRow: sourceRow, except: targetRow, writer: writer)
                }
                let assignments = navigation.joinColumns.map { (column: $0.remote, value: EntityWriter.value($0.local, of: source.type, in: sourceRow)) }
                _ = try await Self.relink(targetPath, set: targetSet, type: targetType, assignments: assignments, access: access, writer: writer)
            }
        case .remove(let key):
            if foreignKeyHere {
                let assignments = navigation.joinColumns.map { (column: $0.local, value: ODataValue.null) }
                _ = try await Self.relink(sourceSteps, set: source.set, type: source.type, assignments: assignments, access: access, writer: writer, current: sourceRow)
            } else {
                var steps = operation.path.steps
                steps.append(ResolvedPath.Step(set: targetSet, type: targetType, via: navigation, key: key))
                let linked = ResolvedPath(steps: steps, terminal: .entities)
                guard try await writer.fetch(linked.steps[...], columns: []) != nil else {
                    throw ODataError.notFound("\(sourcePath) has no link \(navigation.name)\(key.map { KeyPredicate.forKey(names: targetType.keyNames, values: $0).urlText } ?? "").")
                }
                let assignments = navigation.joinColumns.map { (column: $0.remote, value: ODataValue.null) }
                _ = try await Self.relink(linked, set: targetSet, type: targetType, assignments: assignments, access: access, writer: writer)
            }
        }
        return .noContent(etag: nil, entityPath: sourcePath)
    }

    /// Clears the foreign key of the entity currently linked to `sourceRow` through a to-one
    /// navigation whose other side holds the key.
    private func unlinkCurrent(sourceRow: [ODataValue], except target: [ODataValue], writer: EntityWriter) async throws {
        var steps = operation.path.steps
        steps.append(ResolvedPath.Step(set: targetSet, type: targetType, via: navigation, key: nil))
        guard let linked = try await writer.fetch(steps[...], columns: targetType.properties),
              EntityWriter.key(of: targetType, in: linked) != EntityWriter.key(of: targetType, in: target) else { return }
        let path = ResolvedPath(steps: [ResolvedPath.Step(set: targetSet, type: targetType, via: nil, key: EntityWriter.key(of: targetType, in: linked))],
                                terminal: .entities)
        _ = try await Self.relink(path, set: targetSet, type: targetType,
                                  assignments: navigation.joinColumns.map { (column: $0.remote, value: ODataValue.null) },
                                  access: access, writer: writer)
    }

    /// Sets foreign key columns of one existing entity, under the holder's update rule, and returns
    /// the entity as stored.
    static func relink(_ path: ResolvedPath, set: EntitySet, type: EntityType, assignments: [(column: String, value: ODataValue)],
                       access: RowAccess, writer: EntityWriter) async throws -> [ODataValue] {
        try await relink(path.steps[...], set: set, type: type, assignments: assignments, access: access, writer: writer, current: nil)
    }

    static func relink(_ steps: ArraySlice<ResolvedPath.Step>, set: EntitySet, type: EntityType,
                       assignments: [(column: String, value: ODataValue)], access: RowAccess,
                       writer: EntityWriter, current: [ODataValue]?) async throws -> [ODataValue] {
        var row = current
        if row == nil { row = try await writer.fetchLocked(steps) }
        guard let row else { throw try await WriteOperation.notFound(steps, writer: writer) }
        let key = EntityWriter.key(of: type, in: row)
        let uri = EntityWriter.relativeURI(set: set, type: type, row: row)
        guard try await writer.allows(access, action: .update, set: set, type: type, key: key) else {
            throw ODataError.forbidden("You may not change the links of \(uri).")
        }
        if let readOnly = set.readOnlyReason {
            throw ODataError.methodNotAllowed("\(uri) cannot be linked: \(set.name) is read-only (\(readOnly)).")
        }
        let stored = try await writer.update(set, type: type, key: key, assignments: assignments.map { (column: $0.column, value: AssignedValue.value($0.value)) })
        guard try await writer.allows(access, action: .update, set: set, type: type, key: key) else {
            throw ODataError.forbidden("The change would move \(uri) outside the rows you may change.")
        }
        return stored
    }
}
