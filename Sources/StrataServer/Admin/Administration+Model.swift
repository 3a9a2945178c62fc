import Foundation
import Logging
import StrataCore
import StrataOData
import StrataStorage

extension Administration {
    /// The model a server with `configuration` serves for `service`, written as a model file
    /// (`strata service model NAME`): the catalog as the service's current model file shapes it.
    /// Throws the model file's error when that file does not fit the catalog.
    public static func modelFile(of service: String, _ configuration: StrataConfiguration, logger: Logger) async throws -> String {
        try await withModels(configuration, logger: logger) { store, system in
            try await requireModel(service, store: store, system: system, configuration, logger: logger).modelFileText(service: service)
        }
    }

    /// Checks `text` as `service`'s model file against its catalog and stores it in the system
    /// database (`strata service model NAME --apply FILE`); every running server on a PostgreSQL
    /// system database applies it at once (a server on SQLite after `strata service reload`).
    /// A file that does not fit throws its ``ModelFileError`` and changes nothing. Answers the
    /// model as it will be served.
    public static func applyModelFile(_ text: String, path: String, to service: String, _ configuration: StrataConfiguration,
                                      logger: Logger) async throws -> String {
        try await withModels(configuration, logger: logger) { store, system in
            try await storeModelFile(text, path: path, to: service, store: store, system: system, logger: logger).modelFileText(service: service)
        }
    }

    /// ``applyModelFile(_:path:to:_:logger:)`` on an open store: checks, applies tracking, stores;
    /// answers the model as it will be served.
    static func storeModelFile(_ text: String, path: String, to service: String, store: any ServiceStore, system: SystemDatabase,
                               logger: Logger) async throws -> ServiceLoader.Loaded {
        let now = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        let candidate = StoredModel(text: text, updatedAt: now)
        var models = try await system.serviceModels()
        models[service] = candidate
        // The text alone, not a file in the data directory that may be newer.
        let loader = ServiceLoader(modelDirectory: nil, storedModels: models, logger: logger)
        guard let storage = try await store.discover().first(where: { $0.name == service }) else {
            throw try await noService(service, store)
        }
        let loaded: ServiceLoader.Loaded
        do {
            loaded = try await loader.load(storage, settings: try await system.serviceSettings()[service] ?? ServiceSettings())
        } catch let error as ModelFileError {
            throw ModelFileError(path: path, line: error.line, message: error.message)
        }
        // Tracking switched on or off takes effect now, by this process (§1 of the change-feed
        // design), before the model is stored: a refusal stores nothing. The servers' reload
        // then finds the triggers as the model wants them.
        do {
            try await ChangeCapture(storage: storage).apply(loaded.captureTables)
        } catch let error as ChangeCaptureError {
            throw ModelFileError(path: path, line: loaded.modelFile?.trackAll?.line, message: error.description)
        }
        try await system.storeModel(candidate, for: service)
        return loaded
    }

    /// Removes `service`'s stored model file (`strata service model NAME --remove`): the service
    /// is then served as its catalog describes it. Answers whether it had one.
    public static func removeModelFile(of service: String, _ configuration: StrataConfiguration, logger: Logger) async throws -> Bool {
        try await withModels(configuration, logger: logger) { store, system in
            guard try await store.discover().contains(where: { $0.name == service }) else { throw try await noService(service, store) }
            return try await system.removeModel(for: service)
        }
    }

    static func withModels<T: Sendable>(
        _ configuration: StrataConfiguration, logger: Logger,
        _ body: @Sendable (any ServiceStore, SystemDatabase) async throws -> T
    ) async throws -> T {
        try await DetachedStore.with(directory: URL(fileURLWithPath: configuration.dataDirectory, isDirectory: true),
                                     database: configuration.database, system: configuration.systemDatabase, logger: logger) { store in
            let system = SystemDatabase(database: store.system, schema: store.systemSchema)
            try await system.migrate(logger: logger)
            return try await body(store, system)
        }
    }

    static func requireModel(_ service: String, store: any ServiceStore, system: SystemDatabase,
                                     _ configuration: StrataConfiguration, logger: Logger) async throws -> ServiceLoader.Loaded {
        guard let loaded = try await loadModel(service, store: store, system: system, modelDirectory: configuration.dataDirectory,
                                               logger: logger) else {
            throw try await noService(service, store)
        }
        return loaded
    }

    static func noService(_ service: String, _ store: any ServiceStore) async throws -> ODataError {
        let names = try await store.discover().map(\.name).sorted()
        return ODataError.notFound("There is no service named '\(service)'. Services: \(names.joined(separator: ", ")).")
    }
}
