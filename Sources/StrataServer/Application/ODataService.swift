import StrataCore

/// A service as the server serves it: its storage and the model read from its catalog.
struct ODataService: Sendable {
    let storage: ServiceStorage
    let model: ServiceModel
    let settings: ServiceSettings
    /// Per entity set, the shape of its entities read whole (every property, links deferred): what
    /// most reads write, made once per service load instead of once per request.
    let wholeEntityShapes: [String: EntityShape]

    init(storage: ServiceStorage, model: ServiceModel, settings: ServiceSettings) {
        self.storage = storage
        self.model = model
        self.settings = settings
        var shapes: [String: EntityShape] = [:]
        for set in model.entitySets {
            let type = model.entityType(of: set)
            shapes[set.name] = EntityShape(set: set, type: type, properties: type.properties)
        }
        wholeEntityShapes = shapes
    }

    var name: String { storage.name }
    var database: any Database { storage.database }
    var dialect: SQLDialect { storage.database.dialect }
}
