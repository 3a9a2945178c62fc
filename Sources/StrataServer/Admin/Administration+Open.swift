import Foundation
import Logging
import StrataCore
import StrataSQL
import StrataIdentity
import StrataOData
import StrataStorage

extension Administration {
    /// Opens the system database of a configuration (`--data`, `--database`, `--system-database`) for the duration of
    /// `body`: what the CLI's `user`, `grant`, `revoke` and `issuer` commands work on.
    ///
    /// It may run while a server uses the same data: on SQLite both open the files in WAL mode and
    /// write one transaction at a time; on PostgreSQL they are ordinary concurrent clients. The
    /// server reads accounts and roles on every request; on PostgreSQL every change is announced
    /// when it commits and each server forgets its copies of anonymous access, grants and verified
    /// callers at once, while on SQLite the server reloads them when they are older than
    /// `cacheMaxAge` (1 s). Either way changes apply without a restart.
    /// The system tables are created (migrated) first if no server has run yet.
    public static func with<T: Sendable>(
        _ configuration: StrataConfiguration, logger: Logger,
        _ body: @Sendable (Administration) async throws -> T
    ) async throws -> T {
        try await DetachedStore.with(directory: URL(fileURLWithPath: configuration.dataDirectory, isDirectory: true),
                                     database: configuration.database, system: configuration.systemDatabase, logger: logger) { store in
            try await run(store, configuration, logger, body)
        }
    }

    private static func run<T: Sendable>(
        _ store: any ServiceStore, _ configuration: StrataConfiguration, _ logger: Logger,
        _ body: @Sendable (Administration) async throws -> T
    ) async throws -> T {
        let system = SystemDatabase(database: store.system, schema: store.systemSchema)
        try await system.migrate(logger: logger)
        let administration = Administration(
            store: AuthStore(system: system), hasher: try PasswordHasher(cost: configuration.auth.passwordHashCost),
            model: { name in
                try await Self.loadModel(name, store: store, system: system, modelDirectory: configuration.dataDirectory, logger: logger)?.model
            },
            now: configuration.auth.now,
            signingKeys: SigningKeys(
                system: system,
                encryption: KeyEncryption(secret: configuration.auth.keySecret, dataDirectory: configuration.dataDirectory, logger: logger),
                lifetime: configuration.auth.accessTokenLifetime))
        return try await body(administration)
    }

    /// Loads one service's model (its catalog shaped by its model file), as the server does when it starts.
    static func loadModel(_ name: String, store: any ServiceStore, system: SystemDatabase, modelDirectory: String,
                          logger: Logger) async throws -> ServiceLoader.Loaded? {
        guard let storage = try await store.discover().first(where: { $0.name == name }) else { return nil }
        let settings = try await system.serviceSettings()[name] ?? ServiceSettings()
        return try await ServiceLoader(modelDirectory: URL(fileURLWithPath: modelDirectory, isDirectory: true),
                                       storedModels: try await system.serviceModels(), logger: logger)
            .load(storage, settings: settings)
    }
}
