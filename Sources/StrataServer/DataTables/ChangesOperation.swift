import Hummingbird
import Logging
import StrataCore

/// `POST /{service}/$changes`: applies a delta (``DataTableDelta``) and answers one result per change.
///
/// All-or-nothing (the default) runs every change in one transaction: the first failure or conflict
/// rolls all of them back, and every other change is reported failed with the reason. Independent
/// mode runs each change in a transaction of its own. Either way the answer is 200 with the
/// results; a delta that cannot be read (not JSON, an unknown table or field, a value of the wrong
/// type) is a 400 and nothing runs.
struct ChangesOperation: Sendable {
    let call: ODataCall
    /// The Authorization step for this call: each table the request names is authorized through it.
    let authorizer: Authorizer
    let body: [UInt8]

    static let shape = #"{"changes":[{"id":"1","table":"T","kind":"update","key":{…},"original":{…},"values":{…}}]}"#

    private var logger: Logger { call.logger }

    func respond() async throws -> Response {
        try DataTableBody.require(call, body: body, endpoint: "$changes", shape: Self.shape)
        try await requireSomeWriteRight()
        let model = call.service.model
        let delta: DataTableDelta
        do {
            delta = try DataTableDelta(json: body) { table in
                model.entitySet(named: table).map { set in
                    Dictionary(uniqueKeysWithValues: model.entityType(of: set).properties.map { ($0.name, $0.type) })
                }
            }
        } catch {
            throw error.odataError
        }
        let ordered = try TemporaryKeys.ordered(TemporaryKeys.placeholdersAsKeys(delta.changes, model: model), model: model)
        let rights = await authorize(ordered)
        let outcome: (results: [String: DataTableChangeResult], keys: TemporaryKeys)
        switch delta.mode {
        case .allOrNothing: outcome = await allOrNothing(ordered, rights: rights)
        case .independent: outcome = await independent(ordered, rights: rights)
        }
        let response = DataTableChangeResponse(results: delta.changes.map { outcome.results[$0.id]! }, keys: outcome.keys.report)
        return ODataResponse.json(response.jsonBytes, version: nil)
    }

    /// A caller who may not write any table of the service hears so (401 or 403, as the access
    /// policy answers) before any message about the delta, which would tell them about the schema.
    /// Each change is still authorized for its own table and kind.
    private func requireSomeWriteRight() async throws {
        var refusal: (any Error)?
        for set in call.service.model.entitySets where set.readOnlyReason == nil {
            for action in [TableAction.insert, .update, .delete] {
                do {
                    _ = try await authorizer.authorize(action, set.name)
                    return
                } catch {
                    refusal = refusal ?? error
                }
            }
        }
        if let refusal { throw refusal }
    }

    /// Asks the access policy for each change's right before any transaction opens.
    private func authorize(_ changes: [DataTableChange]) async -> [String: Result<RowAccess, any Error>] {
        var rights: [String: Result<RowAccess, any Error>] = [:]
        for change in changes {
            let action: TableAction = switch change.kind {
            case .insert: .insert
            case .update: .update
            case .delete: .delete
            }
            do {
                _ = try ChangeApplier.table(of: change, in: call.service.model)
                rights[change.id] = .success(try await authorizer.authorize(action, change.table))
            } catch {
                rights[change.id] = .failure(error)
            }
        }
        return rights
    }

    /// A change that failed inside the all-or-nothing transaction, carrying it out so it rolls back.
    private struct Abort: Error {
        var id: String
        var error: any Error
    }

    private func allOrNothing(_ changes: [DataTableChange],
                              rights: [String: Result<RowAccess, any Error>]) async -> (results: [String: DataTableChangeResult], keys: TemporaryKeys) {
        let service = call.service
        do {
            return try await service.database.transaction { connection in
                var keys = TemporaryKeys(model: service.model)
                var results: [String: DataTableChangeResult] = [:]
                for change in changes {
                    // Single-row statements do not suspend: let other requests run between changes.
                    await Task.yield()
                    do {
                        let access = try rights[change.id]!.get()
                        let rewritten = keys.rewrite(change)
                        let row = try await ChangeApplier(service: service, access: access).apply(rewritten, connection: connection)
                        results[change.id] = Self.applied(change, row: row, keys: &keys, model: service.model)
                    } catch {
                        throw Abort(id: change.id, error: error)
                    }
                }
                return (results, keys)
            }
        } catch let abort as Abort {
            var results: [String: DataTableChangeResult] = [:]
            for change in changes where change.id != abort.id {
                results[change.id] = DataTableChangeResult(
                    id: change.id, status: .failed,
                    message: "Not applied: change \(abort.id.prefix(60)) could not be applied, and the delta is all-or-nothing, so none of its changes were kept.")
            }
            results[abort.id] = result(for: abort.error, id: abort.id)
            return (results, TemporaryKeys(model: service.model))
        } catch {
            // The commit itself failed: nothing was kept.
            let failure = ODataError.from(error, logger: logger)
            let results = Dictionary(uniqueKeysWithValues: changes.map {
                ($0.id, DataTableChangeResult(id: $0.id, status: .failed, message: "Not applied: \(failure.message)"))
            })
            return (results, TemporaryKeys(model: service.model))
        }
    }

    private func independent(_ changes: [DataTableChange],
                             rights: [String: Result<RowAccess, any Error>]) async -> (results: [String: DataTableChangeResult], keys: TemporaryKeys) {
        let service = call.service
        var keys = TemporaryKeys(model: service.model)
        var results: [String: DataTableChangeResult] = [:]
        for change in changes {
            await Task.yield()
            do {
                let access = try rights[change.id]!.get()
                let rewritten = keys.rewrite(change)
                let row = try await service.database.transaction { connection in
                    try await ChangeApplier(service: service, access: access).apply(rewritten, connection: connection)
                }
                results[change.id] = Self.applied(change, row: row, keys: &keys, model: service.model)
            } catch {
                results[change.id] = result(for: error, id: change.id)
            }
        }
        return (results, keys)
    }

    /// The result of a stored change; an insert's new key is recorded, so later changes that use
    /// its temporary key are rewritten to the stored one.
    private static func applied(_ change: DataTableChange, row: DataTableValues?, keys: inout TemporaryKeys,
                                model: ServiceModel) -> DataTableChangeResult {
        if let row, let set = model.entitySet(named: change.table) {
            keys.record(change, type: model.entityType(of: set), stored: row)
        }
        return DataTableChangeResult(id: change.id, status: .applied, row: row)
    }

    private func result(for error: any Error, id: String) -> DataTableChangeResult {
        if let refusal = error as? ChangeRefusal {
            return DataTableChangeResult(id: id, status: .conflict, serverRow: refusal.serverRow, message: refusal.message)
        }
        let failure = ODataError.from(error, logger: logger)
        return DataTableChangeResult(id: id, status: .failed, message: failure.message)
    }
}
