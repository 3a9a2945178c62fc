import Foundation
import Logging
import StrataCore
import StrataSQL
import StrataBlobs
import StrataIdentity
import StrataStorage

/// What a provisioner may create in a server's data: services from SQL scripts, their settings,
/// blob containers and blobs, anonymous access and accounts. Every operation leaves existing
/// content as it is and says whether it created something.
///
/// A server hands one to its ``StartupProvisioner``s when it starts; commands that create content
/// without a server (`strata demo-data`) open one with ``with(dataDirectory:postgres:logger:_:)``.
package struct ProvisioningTarget: Sendable {
    let store: any ServiceStore
    let system: SystemDatabase
    /// Nil outside a running server, whose blob store is not open.
    let blobs: BlobRuntime?
    /// Nil for a server without authentication, and outside a server.
    let accounts: AccountProvisioning?
    package let logger: Logger

    /// What account provisioning needs: the store the server's caches watch, the server's hasher,
    /// and where new passwords are shown (never the log).
    struct AccountProvisioning: Sendable {
        var store: AuthStore
        var hasher: PasswordHasher
        var announce: @Sendable (String) -> Void
        var now: @Sendable () -> Date
    }

    /// Where the services' model files go (the data directory); nil where there is none to write.
    let modelDirectory: URL?

    init(store: any ServiceStore, system: SystemDatabase, blobs: BlobRuntime? = nil, accounts: AccountProvisioning? = nil,
         modelDirectory: URL? = nil, logger: Logger) {
        self.modelDirectory = modelDirectory
        self.store = store
        self.system = system
        self.blobs = blobs
        self.accounts = accounts
        self.logger = logger
    }

    /// The SQL dialect of the store, which decides the scripts a service is created from.
    package var dialect: SQLDialect { store.dialect }

    /// Whether `name` may name a service: an SQL-safe identifier that shadows none of the server's routes.
    package static func isValidServiceName(_ name: String) -> Bool {
        ServiceName.isValid(name) && !ServiceName.reserved.contains(name)
    }

    /// Creates a service from SQL scripts (written for ``dialect``), all or nothing, unless one of
    /// that name exists. Answers whether it was created.
    package func createService(_ name: String, scripts: [SQLScript]) async throws -> Bool {
        try await store.provision(name, scripts: scripts)
    }

    /// Saves a service's settings (namespace, title, …), replacing any it had.
    package func saveSettings(_ settings: ServiceSettings, of service: String) async throws {
        try await system.saveServiceSettings(service, settings)
    }

    /// The values of some columns of a table, in the order of `orderedBy`; nil when there is no such service.
    package func rows(of table: String, in service: String, columns: [String], orderedBy: [String]) async throws -> [[ODataValue]]? {
        guard let storage = try await store.discover().first(where: { $0.name == service }) else { return nil }
        var sql: SQL = "SELECT \(SQL.identifiers(columns)) FROM \(TableName(schema: storage.schema, name: table))"
        if !orderedBy.isEmpty { sql += " ORDER BY \(SQL.identifiers(orderedBy))" }
        let statement = SQLStatement(sql, dialect: storage.database.dialect)
        let result = try await storage.database.read { connection in
            try await connection.query(statement, types: [])
        }
        return result.rows
    }
}
