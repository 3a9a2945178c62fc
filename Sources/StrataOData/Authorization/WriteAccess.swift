import HTTPTypes
import StrataCore
import StrataIdentity

/// The rights of a write, all decided before the write is prepared.
///
/// The addressed table's right for the method's action is asked first, before the body is read
/// (``Authorizer/access(toWrite:method:)``), so that a caller without it hears so before anything
/// about the body: validation messages would otherwise tell anonymous callers about the schema. A
/// `$links` change needs the update right on whichever side holds the foreign key, which the
/// model tells, so it is asked then too. A deep insert creates or links entities of other tables,
/// which only its body names: their rights are asked once the body is parsed
/// (``including(_:)``), still before any transaction opens.
package struct WriteAccess: Sendable {
    let authorizer: Authorizer
    /// A handful of decisions at most: a list searched in order costs less than a dictionary.
    private var decisions: [Decision]

    struct Decision: Sendable {
        var table: String
        var action: TableAction
        var access: RowAccess
    }

    init(authorizer: Authorizer, decisions: [Decision]) {
        self.authorizer = authorizer
        self.decisions = decisions
    }

    /// Whether the caller may do `action` on `table`, and on which rows, as decided before. A right
    /// that was not decided is a bug between Authorization and Execution: it is refused (500),
    /// never assumed.
    func rights(_ action: TableAction, _ table: String) throws(ODataError) -> RowAccess {
        guard let decision = decisions.first(where: { $0.table == table && $0.action == action }) else {
            throw .internalError("The right to \(action) on \(table) was not decided before the write ran.")
        }
        return decision.access
    }

    /// These rights and those of the other tables `request` touches: a deep insert's inline
    /// entities (insert) and the existing entities it links that take the new key (update). Asked
    /// in the order the insert meets them, each table and action once. Read-only tables are left
    /// out: the write refuses them with 405, whatever the caller's rights.
    package func including(_ request: WriteRequest) async throws -> WriteAccess {
        guard case .insert(let payload) = request.content else { return self }
        var access = self
        try await access.addInsert(payload, set: request.path.target.set, type: request.path.target.type)
        return access
    }

    private mutating func addInsert(_ payload: EntityPayload, set: EntitySet, type: EntityType) async throws {
        let model = authorizer.service.model
        guard set.readOnlyReason == nil else { return }
        for (name, content) in payload.navigations {
            guard let navigation = type.navigationProperty(named: name), let targetSet = model.entitySet(named: navigation.targetSet) else {
                continue
            }
            let foreignKeyHere = LinkSides.holdsForeignKey(navigation, model: model)
            for entity in content.entities {
                switch entity {
                case .new(let child):
                    try await addInsert(child, set: targetSet, type: model.entityType(of: targetSet))
                case .binding where !foreignKeyHere && targetSet.readOnlyReason == nil:
                    try await add(.update, targetSet.name)
                case .binding:
                    break
                }
            }
        }
        try await add(.insert, set.name)
    }

    private mutating func add(_ action: TableAction, _ table: String) async throws {
        guard !decisions.contains(where: { $0.table == table && $0.action == action }) else { return }
        decisions.append(Decision(table: table, action: action, access: try await authorizer.authorize(action, table)))
    }
}

extension Authorizer {
    /// The rights of a write of `method` on `path` that its URL alone decides: 405 for a read-only
    /// set (nobody may change it), 401 or 403 for a caller without the right on the addressed
    /// table, or for `$links` on the table that holds the link's foreign key.
    package func access(toWrite path: ResolvedPath, method: HTTPRequest.Method) async throws -> WriteAccess {
        let set = path.target.set
        if let reason = set.readOnlyReason {
            throw ODataError.methodNotAllowed("\(set.name) is read-only (\(reason)); it cannot be changed through the service.")
        }
        let action: TableAction
        let table: String
        switch path.terminal {
        case .links(let navigation, _):
            // Anonymous callers can never write: they are turned away before the link's sides are
            // looked at (a read-only side's name would tell them about the schema).
            guard principal != nil else {
                throw AuthErrors.unauthenticated("Sign in to change links of \(set.name) in \(service.name).")
            }
            let model = service.model
            guard let targetSet = model.entitySet(named: navigation.targetSet) else {
                throw ODataError.notFound("The entity set \(navigation.targetSet) is not available.")
            }
            let holder = LinkSides.holdsForeignKey(navigation, model: model) ? set : targetSet
            if let reason = holder.readOnlyReason {
                throw ODataError.methodNotAllowed("The link \(navigation.name) cannot change: \(holder.name) is read-only (\(reason)).")
            }
            (action, table) = (.update, holder.name)
        case .entities:
            (action, table) = (method == .post ? .insert : method == .delete ? .delete : .update, set.name)
        default:
            // A property or its $value: DELETE clears it, which is an update of the row.
            (action, table) = (.update, set.name)
        }
        let access = try await authorize(action, table)
        return WriteAccess(authorizer: self, decisions: [.init(table: table, action: action, access: access)])
    }
}
