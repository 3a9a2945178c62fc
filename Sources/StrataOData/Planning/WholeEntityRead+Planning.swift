import StrataCore
import StrataSQL
import StrataStorage

extension WholeEntityRead {
    /// Every entity set's whole-entity read, for a service being loaded.
    static func prepare(_ model: ServiceModel, storage: ServiceStorage) -> [String: WholeEntityRead] {
        var reads: [String: WholeEntityRead] = [:]
        for set in model.entitySets {
            reads[set.name] = prepare(set, model.entityType(of: set), storage: storage)
        }
        return reads
    }

    /// The shape and the `Set(key)` statement of one entity set, planned like any read by key.
    static func prepare(_ set: EntitySet, _ type: EntityType, storage: ServiceStorage) -> WholeEntityRead {
        let shape = EntityShape(set: set, type: type, properties: type.properties)
        let columnTypes = type.properties.map(\.type)
        // A date key stored in another form than Strata's is found by a condition that depends on
        // the key's value (``DateStorageForm/condition(_:_:_:)``): such sets are planned per request.
        guard !type.keyNames.isEmpty, !type.keyNames.contains(where: { storage.dateForm(table: set.name, column: $0) != nil }) else {
            return WholeEntityRead(shape: shape, byKeySQL: nil, columnTypes: columnTypes)
        }
        // Rendering binds every non-null value as a placeholder, whatever its value: the text is
        // the same for every key, so it is made once with stand-in values.
        let standIns = [ODataValue](repeating: .int32(0), count: type.keyNames.count)
        var query = PathPlanner(storage: storage).plan(
            steps: [ResolvedPath.Step(set: set, type: type, via: nil, key: standIns)], columns: type.properties)
        query.limit = 1
        let statement = SQLRenderer.render(query, dialect: storage.database.dialect)
        var byKeySQL: SQLStatement?
        if statement.binds.count == standIns.count {
            byKeySQL = statement.oneRow()
            byKeySQL?.reusableName = NamedStatements.name(for: statement.sql)
        }
        return WholeEntityRead(shape: shape, byKeySQL: byKeySQL, columnTypes: columnTypes)
    }
}

extension ODataService {
    /// A service with its whole-entity reads prepared: what loading a service makes, from the model
    /// ``ModelBuilder`` made of its catalog.
    package convenience init(storage: ServiceStorage, catalog: CatalogModel, settings: ServiceSettings, maxProtocolVersion: ODataVersion = .v2) {
        var storage = storage
        storage.names = catalog.names
        self.init(storage: storage, model: catalog.model, settings: settings, maxProtocolVersion: maxProtocolVersion,
                  wholeEntityReads: WholeEntityRead.prepare(catalog.model, storage: storage))
    }
}
