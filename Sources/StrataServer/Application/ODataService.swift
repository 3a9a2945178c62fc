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
    /// Per entity set, what reading its entities whole needs (made once per service load instead of
    /// once per request): most reads are of whole entities.
    let wholeEntityReads: [String: WholeEntityRead]
    /// Per entity type (qualified name), the query options of a request without any, bound.
    let plainQueries: [String: BoundQuery]
    /// `/name/`, percent-encoded: what follows the base URL in the service root.
    let rootPath: String
    /// Row counts of its tables, for the cross-join check of `$sql`.
    let tableSizes = TableSizes()

    init(storage: ServiceStorage, model: ServiceModel, settings: ServiceSettings) {
        self.storage = storage
        self.model = model
        self.settings = settings
        var reads: [String: WholeEntityRead] = [:]
        var plain: [String: BoundQuery] = [:]
        for set in model.entitySets {
            let type = model.entityType(of: set)
            reads[set.name] = WholeEntityRead(set: set, type: type, storage: storage)
            plain[type.qualifiedName] = try? QueryBinder(model: model).bind(QueryOptions(), to: type)
        }
        wholeEntityReads = reads
        plainQueries = plain
        rootPath = "/" + PercentEncoding.encodePathSegmentName(storage.name) + "/"
    }

    var name: String { storage.name }
    var database: any Database { storage.database }
    var dialect: SQLDialect { storage.database.dialect }
}

/// Reading one entity set's entities whole (every property, links deferred), prepared per service load.
///
/// A class, and immutable: the prepared key read hands it out on every GET by key, and as a struct
/// each hand-out copied its shape and statement text.
final class WholeEntityRead: Sendable {
    /// The shape the serializer writes such entities in.
    let shape: EntityShape
    /// `SELECT <every column> FROM <table> AS t0 WHERE <key> = ? … LIMIT 1`: the statement of
    /// `Set(key)`, whose binds are the key values in key order. Nil for a type without a key.
    let byKeySQL: SQLStatement?
    /// The name under which PostgreSQL keeps `byKeySQL` prepared (``SQLStatement/reusableName``).
    let byKeyName: String?
    /// The type of each column of `byKeySQL`, for decoding its row.
    let columnTypes: [EDMPrimitiveType?]

    init(set: EntitySet, type: EntityType, storage: ServiceStorage) {
        shape = EntityShape(set: set, type: type, properties: type.properties)
        columnTypes = type.properties.map(\.type)
        guard !type.keyNames.isEmpty else {
            (byKeySQL, byKeyName) = (nil, nil)
            return
        }
        // Rendering binds every non-null value as a placeholder, whatever its value: the text is
        // the same for every key, so it is made once with stand-in values.
        let standIns = [ODataValue](repeating: .int32(0), count: type.keyNames.count)
        var query = PathPlanner(storage: storage).plan(
            steps: [ResolvedPath.Step(set: set, type: type, via: nil, key: standIns)], columns: type.properties)
        query.limit = 1
        let statement = SQLRenderer.render(query, dialect: storage.database.dialect)
        byKeyName = statement.binds.count == standIns.count ? NamedStatements.name(for: statement.sql) : nil
        byKeySQL = byKeyName.map { name in
            var prepared = statement.oneRow()
            prepared.reusableName = name
            return prepared
        }
    }
}
