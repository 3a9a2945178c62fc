import StrataCore
import StrataSQL
import StrataStorage

/// A service as the server serves it: its storage and the model read from its catalog.
///
/// A class: every request's ``ODataCall`` holds it, and each hand-off of a struct this size would
/// retain every member.
package final class ODataService: Sendable {
    package let storage: ServiceStorage
    package let model: ServiceModel
    package let settings: ServiceSettings
    /// The highest protocol version it answers with (its model file's `maxProtocolVersion`).
    package let maxProtocolVersion: ODataVersion
    /// Per entity set, what reading its entities whole needs (made once per service load instead of
    /// once per request): most reads are of whole entities.
    let wholeEntityReads: [String: WholeEntityRead]
    /// Per entity type (qualified name), the query options of a request without any, bound.
    let plainQueries: [String: BoundQuery]
    /// `/name/`, percent-encoded: what follows the base URL in the service root.
    package let rootPath: String
    /// What features keep for this service (`$sql`'s catalog, change sets being applied, …).
    package let features = ServiceFeatureState()

    /// `storage` must carry the model's database names (``ServiceStorage/names``).
    /// `wholeEntityReads` are prepared by the planner (``WholeEntityRead/prepare(_:storage:)``),
    /// above this layer; `init(storage:catalog:settings:maxProtocolVersion:)` does that.
    init(storage: ServiceStorage, model: ServiceModel, settings: ServiceSettings, maxProtocolVersion: ODataVersion = .v2,
         wholeEntityReads: [String: WholeEntityRead]) {
        self.storage = storage
        self.model = model
        self.settings = settings
        self.maxProtocolVersion = maxProtocolVersion
        var plain: [String: BoundQuery] = [:]
        for set in model.entitySets {
            let type = model.entityType(of: set)
            plain[type.qualifiedName] = try? QueryBinder(model: model).bind(QueryOptions(), to: type)
        }
        self.wholeEntityReads = wholeEntityReads
        plainQueries = plain
        rootPath = "/" + PercentEncoding.encodePathSegmentName(storage.name) + "/"
    }

    package var name: String { storage.name }
    package var database: any Database { storage.database }
    package var dialect: SQLDialect { storage.database.dialect }
}
