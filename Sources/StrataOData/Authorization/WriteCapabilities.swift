import StrataCore
import StrataIdentity

/// What a caller may write to each entity set of its model, for the annotations of V4's
/// `$metadata` (Capabilities' Insert/Update/DeleteRestrictions, Core.Permissions): a client that
/// reads them offers only the edits that would succeed — for this caller, not for everyone.
///
/// A right that may apply to some rows only (a grant with a row filter) counts as a right: the
/// annotations say whether the action can succeed at all, not on which rows.
package struct WriteCapabilities: Sendable {
    /// The write actions allowed, by entity set name.
    private var allowed: [String: Set<TableAction>]

    /// Every write on every set: what a document without a caller says (and what tests build).
    package static func unrestricted(_ model: ServiceModel) -> WriteCapabilities {
        WriteCapabilities(allowed: Dictionary(uniqueKeysWithValues: model.entitySets.map {
            ($0.name, $0.isReadOnly ? [] : Set(TableAction.writes))
        }))
    }

    /// Whether `action` can succeed on `set`: the set is writable and the caller holds the right.
    package func allows(_ action: TableAction, on set: String) -> Bool {
        allowed[set]?.contains(action) ?? false
    }

    /// Whether some write can give a property of `set` a value: an insert or an update.
    package func canSetValues(of set: String) -> Bool {
        allows(.insert, on: set) || allows(.update, on: set)
    }
}

extension TableAction {
    /// The actions that change rows.
    static let writes: [TableAction] = [.insert, .update, .delete]
}

extension Authorizer {
    /// Asks the policy for every write on every set of `model` (the caller's model). A refusal
    /// (401, 403) is an answer, "no"; any other failure is the request's.
    package func writeCapabilities(of model: ServiceModel) async throws -> WriteCapabilities {
        var capabilities = WriteCapabilities.unrestricted(model)
        for set in model.entitySets where !set.isReadOnly {
            for action in TableAction.writes {
                do {
                    _ = try await authorize(action, set.name)
                } catch let error as ODataError where error.status == 401 || error.status == 403 {
                    capabilities.deny(action, on: set.name)
                }
            }
        }
        return capabilities
    }
}

extension WriteCapabilities {
    fileprivate mutating func deny(_ action: TableAction, on set: String) {
        allowed[set]?.remove(action)
    }
}
