import StrataCore
import StrataSQL

/// One service's storage: the database its tables are in, and where in it.
package struct ServiceStorage: Sendable {
    package var name: String
    package var database: any Database
    /// The PostgreSQL schema holding the service's tables; nil on SQLite (one file per service).
    package var schema: String?
    package var catalogReader: any CatalogReader
    /// The database names behind the names of the service's model; given when the service is
    /// loaded (``ODataService``). Statements name tables and columns only through ``table(_:)``
    /// and ``column(_:of:)``.
    package var names = StorageNames()
    /// How the SQLite date columns not in Strata's own form store their values, read with the
    /// catalog (``DateForms/init(_:service:logger:)``), by database names; empty until then. On
    /// PostgreSQL only its `date` columns have one, which refuses a time they would drop.
    package var dateForms = DateForms()
    /// The database tables whose changes are captured (the model file's `track`, applied by
    /// ``ChangeCapture``); empty when the service is not tracked.
    package var trackedTables: Set<String> = []
    /// Table → column → EDM type of the tracked tables' key and link columns, to decode the log
    /// (``ChangeLog``).
    package var trackedColumnTypes: [String: [String: EDMPrimitiveType]] = [:]

    /// The qualified SQL name of the table behind one of the service's entity sets.
    package func table(_ entitySet: String) -> TableName {
        TableName(schema: schema, name: names.table(entitySet))
    }

    /// The column behind a property of one of the service's entity types.
    package func column(_ property: String, of type: EntityType) -> String {
        names.column(property, of: type.name)
    }
}

/// Where services live: SQLite files in a data directory, or schemas of a PostgreSQL database.
/// The system database (settings, and later accounts) lives beside them in the same kind of store.
package protocol ServiceStore: Sendable {
    var dialect: SQLDialect { get }
    /// The database holding Strata's own tables.
    var system: any Database { get }
    /// The schema of Strata's own tables on PostgreSQL; nil on SQLite.
    var systemSchema: String? { get }
    /// Strata's own tables through a view whose reads may go to standbys when a caller asks with a
    /// position (``Database/read(after:onStandbys:scanning:_:)``): blob content. Nil unless they are
    /// replicated with the services' tables (the same PostgreSQL database) and the server reads standbys.
    var replicatedSystem: (any Database)? { get }

    /// Finds the services that exist now.
    func discover() async throws -> [ServiceStorage]

    /// Creates a service by applying SQL scripts, all or nothing, unless it exists already.
    /// Answers whether it was created.
    func provision(_ name: String, scripts: [SQLScript]) async throws -> Bool

    func close() async
}

package extension ServiceStore {
    var replicatedSystem: (any Database)? { nil }
}

/// Names that may be services: SQL-safe identifiers that are also readable URL segments.
package enum ServiceName {
    package static func isValid(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic || first == "_",
              name.count <= 63 else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "_") }
    }

    /// Service names that would shadow Strata's own routes (`.well-known` is no valid name anyway, but
    /// its path must reach the router, for `/.well-known/jwks.json`).
    package static let reserved: Set<String> = ["health", "metrics", "auth", "admin", "blobs", "console", "strata_system", "strata_feed", "strata_sync", ".well-known"]
}
