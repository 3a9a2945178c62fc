import Foundation
import Logging
import StrataCore
import StrataSQL

/// Services as SQLite files: `<data>/<service>.sqlite`, plus `<data>/strata_system.sqlite` for Strata
/// itself unless its tables are placed elsewhere (``SystemPlacement``).
package final class SQLiteServiceStore: ServiceStore {
    package let dialect = SQLDialect.sqlite
    package let system: any Database
    package let systemSchema: String?
    let directory: URL
    /// A single database file served as one service (`--database path.sqlite`), instead of the directory's files.
    let singleFile: URL?
    private let counter: StatementCounter
    private let poolWaits: PoolWaitRecorder
    private let logger: Logger
    private let opened = DatabaseCache()

    static let systemFileName = "strata_system.sqlite"
    static let provisioningSuffix = ".provisioning"

    /// - Parameters:
    ///   - system: where Strata's own tables are when not in the data directory; the store closes
    ///     it with its own databases.
    ///   - poolWaits: hears how long each lease waited for a connection, the services' and Strata's own.
    package static func open(directory: URL, singleFile: URL?, counter: StatementCounter, logger: Logger,
                     system: SystemPlacement? = nil, poolWaits: PoolWaitRecorder = .none) async throws -> SQLiteServiceStore {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw StorageError.unavailable("cannot create the data directory \(directory.path): \(error.localizedDescription)")
        }
        var placement = system
        if placement == nil {
            placement = SystemPlacement(database: try await SQLiteDatabase.open(
                // Not counted: `strata_sql_statements_total` counts the services' SQL, not Strata's own access checks.
                path: directory.appendingPathComponent(systemFileName).path, readers: 2, scanners: 1, counter: .none,
                poolWaits: poolWaits, logger: logger),
                schema: nil)
        }
        return SQLiteServiceStore(directory: directory, singleFile: singleFile, system: placement!, counter: counter,
                                  poolWaits: poolWaits, logger: logger)
    }

    private init(directory: URL, singleFile: URL?, system: SystemPlacement, counter: StatementCounter, poolWaits: PoolWaitRecorder,
                 logger: Logger) {
        self.directory = directory
        self.singleFile = singleFile
        self.system = system.database
        self.systemSchema = system.schema
        self.counter = counter
        self.poolWaits = poolWaits
        self.logger = logger
    }

    package func discover() async throws -> [ServiceStorage] {
        var files: [(name: String, url: URL)] = []
        if let singleFile {
            files.append((singleFile.deletingPathExtension().lastPathComponent, singleFile))
        } else {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            for entry in entries.sorted() where entry.hasSuffix(".sqlite") && entry != Self.systemFileName {
                files.append((String(entry.dropLast(".sqlite".count)), directory.appendingPathComponent(entry)))
            }
        }
        var services: [ServiceStorage] = []
        for file in files {
            guard ServiceName.isValid(file.name), !ServiceName.reserved.contains(file.name) else {
                logger.warning("SQLite file left out: its name cannot be a service name", metadata: ["file": .string(file.url.path)])
                continue
            }
            let database = try await opened.database(at: file.url.path) {
                try await SQLiteDatabase.open(path: file.url.path, counter: self.counter, poolWaits: self.poolWaits, logger: self.logger)
            }
            services.append(ServiceStorage(name: file.name, database: database, schema: nil, catalogReader: SQLiteCatalogReader()))
        }
        return services
    }

    package func provision(_ name: String, scripts: [SQLScript]) async throws -> Bool {
        let target = directory.appendingPathComponent("\(name).sqlite")
        if FileManager.default.fileExists(atPath: target.path) { return false }
        // Build the file under a temporary name and rename it when complete, so that a crash
        // half-way leaves no half-made service behind.
        let staging = directory.appendingPathComponent(".\(name).sqlite\(Self.provisioningSuffix)")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: staging.path + suffix) }
        let database = try await SQLiteDatabase.open(path: staging.path, readers: 1, scanners: 1, counter: counter, logger: logger)
        do {
            try await database.transaction { connection in
                for script in scripts {
                    for statement in script.statements {
                        try await connection.execute(statement)
                    }
                }
            }
            await database.close()
        } catch {
            await database.close()
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: staging.path + suffix) }
            throw error
        }
        try FileManager.default.moveItem(at: staging, to: target)
        return true
    }

    package func close() async {
        for database in await opened.all() { await database.close() }
        await system.close()
    }
}

/// Opened service databases by path, so rediscovery reuses connections.
actor DatabaseCache {
    private var databases: [String: any Database] = [:]

    func database(at path: String, open: () async throws -> any Database) async throws -> any Database {
        if let existing = databases[path] { return existing }
        let database = try await open()
        databases[path] = database
        return database
    }

    func all() -> [any Database] {
        Array(databases.values)
    }
}
