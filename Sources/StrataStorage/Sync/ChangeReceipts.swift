import Crypto
import StrataCore
import StrataSQL

/// Receipts of the changes applied for change sets sent with an `Idempotency-Key`
/// (docs/design/OFFLINE-SYNC.md §2). Each applied change's result is written by the transaction
/// that applies it, so after any fault the receipts say exactly what was committed: a retried
/// change set replays those results and applies only the rest.
package struct ChangeReceipts: Sendable {
    let database: any Database
    let sql: ChangeReceiptSQL

    package init(storage: ServiceStorage) {
        database = storage.database
        sql = ChangeReceiptSQL(dialect: storage.database.dialect, service: storage.name)
    }

    /// The receipts of one change set, by change id, with the fingerprint of the body they were
    /// written for (nil when there are none).
    package struct Found: Sendable {
        package var fingerprint: [UInt8]?
        package var results: [String: String]
    }

    /// Makes the table when missing: a service's first idempotent change set.
    package func prepare() async throws {
        let exists = try await database.read { [sql] connection in try await !connection.query(sql.exists).rows.isEmpty }
        guard !exists else { return }
        try await database.transaction { [sql] connection in
            for statement in sql.create { try await connection.execute(statement) }
        }
    }

    package func read(caller: String, key: String) async throws -> Found {
        let rows = try await database.read { [sql] connection in
            try await connection.query(sql.read(caller: caller, key: key), types: [.string, .binary, .string]).rows
        }
        var found = Found(fingerprint: nil, results: [:])
        for row in rows {
            guard let change = row[0].stringValue, let result = row[2].stringValue else { continue }
            if case .binary(let data) = row[1] { found.fingerprint = Array(data) }
            found.results[change] = result
        }
        return found
    }

    /// Writes the receipt of one applied change inside the transaction that applied it.
    package func record(caller: String, key: String, change: String, fingerprint: [UInt8], result: DataTableChangeResult,
                _ connection: any DatabaseConnection) async throws {
        var writer = JSONWriter()
        result.write(to: &writer)
        try await connection.execute(sql.insert(caller: caller, key: key, change: change, fingerprint: fingerprint,
                                                result: String(decoding: writer.bytes, as: UTF8.self)))
    }

    /// Deletes receipts older than `retention`; nothing when the service never had one.
    package func prune(olderThan retention: Duration) async throws {
        let exists = try await database.read { [sql] connection in try await !connection.query(sql.exists).rows.isEmpty }
        guard exists else { return }
        try await database.transaction { [sql] connection in
            try await connection.execute(sql.prune(olderThan: retention.components.seconds))
        }
    }

    /// What a receipt is checked against: SHA-256 of the request body.
    package static func fingerprint(_ body: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: body))
    }
}
