import Foundation
import Logging
import StrataCore

extension Administration {
    /// The model a server with `configuration` serves for `service`, written as a model file
    /// (`strata service model NAME`): the catalog as the service's current model file shapes it.
    /// Throws the model file's error when that file does not fit the catalog.
    public static func modelFile(of service: String, _ configuration: StrataConfiguration, logger: Logger) async throws -> String {
        try await DetachedStore.with(directory: URL(fileURLWithPath: configuration.dataDirectory, isDirectory: true),
                                     database: configuration.database, logger: logger) { store in
            let system = SystemDatabase(database: store.system, schema: store.systemSchema)
            try await system.migrate(logger: logger)
            guard let loaded = try await loadModel(service, store: store, system: system, modelDirectory: configuration.dataDirectory,
                                                   logger: logger) else {
                let names = try await store.discover().map(\.name).sorted()
                throw ODataError.notFound("There is no service named '\(service)'. Services: \(names.joined(separator: ", ")).")
            }
            return loaded.modelFileText(service: service)
        }
    }
}
