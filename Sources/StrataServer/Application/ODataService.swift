import StrataCore

/// A service as the server serves it: its storage and the model read from its catalog.
struct ODataService: Sendable {
    var storage: ServiceStorage
    var model: ServiceModel
    var settings: ServiceSettings

    var name: String { storage.name }
    var database: any Database { storage.database }
    var dialect: SQLDialect { storage.database.dialect }
}
