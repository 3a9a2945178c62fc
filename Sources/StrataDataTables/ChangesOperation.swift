import HTTPTypes
import Hummingbird
import Logging
import StrataCore
import Synchronization
import StrataIdentity
import StrataOData
import StrataStorage

/// `POST /{service}/$changes`: applies a delta (``DataTableDelta``) and answers one result per change.
///
/// All-or-nothing (the default) runs every change in one transaction: the first failure or conflict
/// rolls all of them back, and every other change is reported failed with the reason. Independent
/// mode runs each change in a transaction of its own. Either way the answer is 200 with the
/// results; a delta that cannot be read (not JSON, an unknown table or field, a value of the wrong
/// type) is a 400 and nothing runs.
///
/// With an `Idempotency-Key` (``IdempotencyKey``) each applied change's result is written as a
/// receipt in the transaction that applies it (``ChangeReceipts``). The same key again — a retry
/// after a timeout, a dropped connection or a killed server — answers the stored results of the
/// changes that were applied (`Idempotent-Replayed: true`) and applies only those that were not.
/// The key with another body is 422; while a request with the key runs here, another is 409.
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
        guard let key = try idempotencyKey() else {
            return try await apply(delta, ordered, rights: rights, receipt: nil, replayed: [:])
        }
        let receipt = Receipt(receipts: ChangeReceipts(storage: call.service.storage), caller: caller, key: key.value,
                              fingerprint: ChangeReceipts.fingerprint(body))
        let claim = receipt.caller + "\u{0}" + receipt.key
        guard call.service.dataTables.changeSetClaims.claim(claim) else {
            throw ODataError(status: 409, code: "Conflict",
                             message: "A change set with this Idempotency-Key is being applied now; send it again when that request has been answered.")
        }
        defer { call.service.dataTables.changeSetClaims.release(claim) }
        try await receipt.receipts.prepare()
        let replayed = try await replayedResults(receipt, delta: delta)
        let response = try await apply(delta, ordered, rights: rights, receipt: receipt, replayed: replayed)
        // A change set that failed because another server applied it at the same moment (the
        // receipt's key was taken): answer what that server applied.
        if replayed.isEmpty, receipt.mayHaveRaced, case let again = try await replayedResults(receipt, delta: delta), !again.isEmpty {
            return try await apply(delta, ordered, rights: rights, receipt: receipt, replayed: again)
        }
        return response
    }

    private func apply(_ delta: DataTableDelta, _ ordered: [DataTableChange], rights: [String: Result<RowAccess, any Error>],
                       receipt: Receipt?, replayed: [String: DataTableChangeResult]) async throws -> Response {
        let outcome: (results: [String: DataTableChangeResult], keys: TemporaryKeys)
        switch delta.mode {
        case .allOrNothing: outcome = await allOrNothing(ordered, rights: rights, receipt: receipt, replayed: replayed)
        case .independent: outcome = await independent(ordered, rights: rights, receipt: receipt, replayed: replayed)
        }
        let response = DataTableChangeResponse(results: delta.changes.map { outcome.results[$0.id]! }, keys: outcome.keys.report)
        var headers = HTTPFields()
        if !replayed.isEmpty { headers[HTTPField.Name(IdempotencyKey.replayedHeaderName)!] = "true" }
        return ODataResponse.json(response.jsonBytes, version: nil, extraHeaders: headers)
    }

    // MARK: Idempotency

    /// Where the receipts of an idempotent change set go.
    private final class Receipt: Sendable {
        let receipts: ChangeReceipts
        let caller: String
        let key: String
        let fingerprint: [UInt8]
        /// Set when writing a receipt failed: perhaps another server applied the same key at once.
        private let raced = Mutex(false)

        init(receipts: ChangeReceipts, caller: String, key: String, fingerprint: [UInt8]) {
            self.receipts = receipts
            self.caller = caller
            self.key = key
            self.fingerprint = fingerprint
        }

        var mayHaveRaced: Bool { raced.withLock { $0 } }

        func record(_ change: DataTableChange, _ result: DataTableChangeResult, _ connection: any DatabaseConnection) async throws {
            do {
                try await receipts.record(caller: caller, key: key, change: change.id, fingerprint: fingerprint, result: result, connection)
            } catch {
                raced.withLock { $0 = true }
                throw error
            }
        }
    }

    /// The request's `Idempotency-Key`, nil when it has none.
    private func idempotencyKey() throws -> IdempotencyKey? {
        let values = call.headers[values: HTTPField.Name(IdempotencyKey.headerName)!]
        guard let text = values.first else { return nil }
        guard values.count == 1, let key = IdempotencyKey(header: text) else {
            throw ODataError.badRequest("Idempotency-Key takes one key of 1 to \(IdempotencyKey.maximumLength) visible ASCII characters (a UUID, for example), in quotes or not.")
        }
        return key
    }

    /// Receipts are per caller: one caller's key never answers another's request.
    private var caller: String {
        guard let principal = authorizer.principal else { return "" }
        return (principal.issuer.map { $0 + " " } ?? "") + principal.subject
    }

    /// The stored results of the changes applied under the key, by change id.
    private func replayedResults(_ receipt: Receipt, delta: DataTableDelta) async throws -> [String: DataTableChangeResult] {
        let found = try await receipt.receipts.read(caller: receipt.caller, key: receipt.key)
        guard let fingerprint = found.fingerprint else { return [:] }
        guard fingerprint == receipt.fingerprint else {
            throw ODataError(status: 422, code: "IdempotencyKeyReused",
                             message: "This Idempotency-Key was used for another change set; send new changes with a new key.")
        }
        var bytes = Array("{\"results\":[".utf8)
        for (index, result) in found.results.values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += Array(result.utf8)
        }
        bytes += Array("]}".utf8)
        let model = call.service.model
        let stored = try DataTableChangeResponse(json: bytes, delta: delta) { table in
            model.entitySet(named: table).map { set in
                Dictionary(uniqueKeysWithValues: model.entityType(of: set).properties.map { ($0.name, $0.type) })
            }
        }
        return Dictionary(stored.results.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
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

    private func allOrNothing(_ changes: [DataTableChange], rights: [String: Result<RowAccess, any Error>], receipt: Receipt?,
                              replayed: [String: DataTableChangeResult]) async -> (results: [String: DataTableChangeResult], keys: TemporaryKeys) {
        let service = call.service
        do {
            return try await service.database.transaction { connection in
                var keys = TemporaryKeys(model: service.model)
                var results: [String: DataTableChangeResult] = [:]
                for change in changes {
                    if let stored = replayed[change.id] {
                        results[change.id] = Self.applied(change, row: stored.row, keys: &keys, model: service.model)
                        continue
                    }
                    // Single-row statements do not suspend: let other requests run between changes.
                    await Task.yield()
                    do {
                        let access = try rights[change.id]!.get()
                        let rewritten = keys.rewrite(change)
                        let row = try await ChangeApplier(service: service, access: access).apply(rewritten, connection: connection)
                        let result = Self.applied(change, row: row, keys: &keys, model: service.model)
                        try await receipt?.record(change, result, connection)
                        results[change.id] = result
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

    private func independent(_ changes: [DataTableChange], rights: [String: Result<RowAccess, any Error>], receipt: Receipt?,
                             replayed: [String: DataTableChangeResult]) async -> (results: [String: DataTableChangeResult], keys: TemporaryKeys) {
        let service = call.service
        var keys = TemporaryKeys(model: service.model)
        var results: [String: DataTableChangeResult] = [:]
        for change in changes {
            if let stored = replayed[change.id] {
                results[change.id] = Self.applied(change, row: stored.row, keys: &keys, model: service.model)
                continue
            }
            await Task.yield()
            do {
                let access = try rights[change.id]!.get()
                let rewritten = keys.rewrite(change)
                let model = service.model
                let result = try await service.database.transaction { connection in
                    let row = try await ChangeApplier(service: service, access: access).apply(rewritten, connection: connection)
                    let result = DataTableChangeResult(id: change.id, status: .applied, row: row)
                    try await receipt?.record(change, result, connection)
                    return result
                }
                results[change.id] = Self.applied(change, row: result.row, keys: &keys, model: model)
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
