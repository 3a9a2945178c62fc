import StrataCore
import StrataSQL

/// A service as the server serves it: its storage and the model read from its catalog.
///
/// A class: every request's ``ODataCall`` holds it, and each hand-off of a struct this size would
/// retain every member.
final class ODataService: Sendable {
    let storage: ServiceStorage
    let model: ServiceModel
    let settings: ServiceSettings
    /// The highest protocol version it answers with (its model file's `maxProtocolVersion`).
    let maxProtocolVersion: ODataVersion
    /// Per entity set, what reading its entities whole needs (made once per service load instead of
    /// once per request): most reads are of whole entities.
    let wholeEntityReads: [String: WholeEntityRead]
    /// Per entity type (qualified name), the query options of a request without any, bound.
    let plainQueries: [String: BoundQuery]
    /// `/name/`, percent-encoded: what follows the base URL in the service root.
    let rootPath: String
    /// Row counts of its tables, for the cross-join check of `$sql`.
    let tableSizes = TableSizes()
    /// The tables and columns `$sql` may name: the model's, under their OData and database names.
    let sqlCatalog: SQLCatalog
    /// Idempotent change sets being applied now (a reload starts with none: the receipts'
    /// primary key still stops a second application).
    let changeSetClaims = ChangeSetClaims()

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
        let names = storage.names
        sqlCatalog = SQLCatalog(model: model, storedTable: { names.table($0.name) }, storedColumn: { names.column($1.name, of: $0.name) })
        rootPath = "/" + PercentEncoding.encodePathSegmentName(storage.name) + "/"
    }

    var name: String { storage.name }
    var database: any Database { storage.database }
    var dialect: SQLDialect { storage.database.dialect }
}
