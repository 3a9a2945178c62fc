import Foundation
import Logging
import StrataCore
import StrataSQL
import StrataStorage

/// Loads a service's model as the server serves it: reads the catalog, applies the service's model
/// file when there is one, builds the model. The server (at start and on reload) and the commands
/// (`strata service model`) load models the same way.
package struct ServiceLoader: Sendable {
    /// Where model files are: the data directory; nil for a loader that reads only stored models.
    var modelDirectory: URL?
    /// The model files the system database holds, by service.
    var storedModels: [String: StoredModel]
    var logger: Logger

    package init(modelDirectory: URL? = nil, storedModels: [String: StoredModel], logger: Logger) {
        self.modelDirectory = modelDirectory
        self.storedModels = storedModels
        self.logger = logger
    }

    /// A service's model and what its model file says beyond the model.
    package struct Loaded: Sendable {
        /// The service's settings, with what its model file overrides (`allowClientKeys`, `odataVersion`).
        package var settings: ServiceSettings
        /// The model and the database names behind it.
        package var built: CatalogModel
        package var model: ServiceModel { built.model }
        package var maxProtocolVersion: ODataVersion
        /// The catalog as the database describes it.
        var original: [CatalogTable]
        /// The catalog as the model file shaped it, from which the model was built.
        package var catalog: [CatalogTable]
        /// The file that was applied, if any.
        package var modelFile: ModelFile?
        /// A data directory's model file that was applied and is newer than the stored model:
        /// to be stored, so that every server applies it.
        package var importing: StoredModel?
        /// How the SQLite date columns of the shaped catalog store their values.
        package var dateForms = DateForms()
    }

    /// The service's model file, from the data directory or the system database (``ModelSource``),
    /// parsed; nil when it has none.
    func modelFile(for service: String) throws(ModelFileError) -> (file: ModelFile, importing: StoredModel?)? {
        guard let source = try ModelSource.resolve(service, stored: storedModels[service], directory: modelDirectory) else { return nil }
        return (try ModelFile(yaml: source.text, path: source.path), source.importing)
    }

    /// Reads the catalog of `storage` and builds its model, shaped by its model file. A model file
    /// that does not fit the catalog throws ``ModelFileError``, and nothing is loaded.
    package func load(_ storage: ServiceStorage, settings: ServiceSettings) async throws -> Loaded {
        let source = try modelFile(for: storage.name)
        let file = source?.file
        let tables = try await storage.database.read { connection in
            try await storage.catalogReader.readTables(connection)
        }
        var catalog = try file?.apply(to: tables, dialect: storage.database.dialect) ?? tables
        if file != nil { catalog = try await sampleOverriddenDates(catalog, original: tables, storage) }
        let namespace = file?.namespace?.value ?? settings.namespace ?? storage.name
        var built: CatalogModel
        do {
            built = try ModelBuilder(serviceName: storage.name, namespace: namespace, logger: logger).build(catalog)
        } catch {
            // Only names a model file gives can fail; point at the first line that gave one.
            guard let file else { throw error }
            throw file.error(for: error)
        }
        if let container = file?.container?.value { built.model.containerName = container }
        var effective = settings
        if let allow = file?.allowClientKeys?.value { effective.allowClientKeys = allow }
        if let version = file?.odataVersion?.value { effective.odataVersion = version }
        let dateForms = DateForms(catalog, service: storage.name, logger: logger)
        return Loaded(settings: effective, built: built, maxProtocolVersion: file?.maxProtocolVersion?.value ?? .v2, original: tables,
                      catalog: catalog, modelFile: file, importing: source?.importing, dateForms: dateForms)
    }

    /// A SQLite column a model file serves as a date (text or numbers the catalog did not call
    /// dates) has its storage form read now, as the catalog reader reads those of date columns.
    private func sampleOverriddenDates(_ catalog: [CatalogTable], original: [CatalogTable], _ storage: ServiceStorage) async throws -> [CatalogTable] {
        guard let reader = storage.catalogReader as? SQLiteCatalogReader else { return catalog }
        let dateTypes: Set<EDMPrimitiveType?> = [.dateTime, .dateTimeOffset]
        var shaped = catalog
        for (t, table) in catalog.enumerated() {
            let before = original.first { $0.name == table.name }
            for (c, column) in table.columns.enumerated()
            where dateTypes.contains(column.type) && !dateTypes.contains(before?.column(named: column.name)?.type) {
                shaped[t].columns[c].dateForm = try await storage.database.read { connection in
                    try await reader.dateForm(of: column, in: table.name, isView: table.isView, connection)
                }
            }
        }
        return shaped
    }
}
