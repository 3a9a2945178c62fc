import HTTPTypes
import StrataCore
import StrataIdentity

/// The rights of a write, decided before the write is prepared: the addressed table's right for
/// the method's action, and the authorizer for the other tables the write may touch.
///
/// A deep insert creates or links entities of other tables, and a `$links` change updates
/// whichever side holds the foreign key: which tables those are is known only once the body is
/// read and the link's sides are worked out, so their rights are asked then — still before any
/// transaction opens. The addressed table's right is asked here, first, so that a caller without
/// it hears so before anything about the body (validation messages would otherwise tell
/// anonymous callers about the schema).
package struct WriteAccess: Sendable {
    let authorizer: Authorizer
    /// The right decided up front; nil for `$links`.
    let target: Decided?

    struct Decided: Sendable {
        var table: String
        var action: TableAction
        var access: RowAccess
    }

    /// Whether the caller may do `action` on `table`, and on which rows.
    func authorize(_ action: TableAction, _ table: String) async throws -> RowAccess {
        if let target, target.table == table, target.action == action { return target.access }
        return try await authorizer.authorize(action, table)
    }
}

extension Authorizer {
    /// The rights of a write of `method` on `path`: 405 for a read-only set (nobody may change it),
    /// 401 or 403 for a caller without the right on the addressed table.
    package func access(toWrite path: ResolvedPath, method: HTTPRequest.Method) async throws -> WriteAccess {
        let set = path.target.set
        if let reason = set.readOnlyReason {
            throw ODataError.methodNotAllowed("\(set.name) is read-only (\(reason)); it cannot be changed through the service.")
        }
        let action: TableAction
        switch path.terminal {
        case .links:
            // Which side of a link holds the foreign key decides the right it needs; the link's
            // preparation asks for it. Anonymous callers can never write, so they are turned away here.
            guard principal != nil else {
                throw AuthErrors.unauthenticated("Sign in to change links of \(set.name) in \(service.name).")
            }
            return WriteAccess(authorizer: self, target: nil)
        case .entities:
            action = method == .post ? .insert : method == .delete ? .delete : .update
        default:
            // A property or its $value: DELETE clears it, which is an update of the row.
            action = .update
        }
        let access = try await authorize(action, set.name)
        return WriteAccess(authorizer: self, target: .init(table: set.name, action: action, access: access))
    }
}
