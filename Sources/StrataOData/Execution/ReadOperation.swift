import StrataCore
import StrataSQL
import StrataStorage

/// Runs a GET of a resolved path with its checked options and the caller's access (decided before,
/// ``Authorizer/access(toRead:)``): plans it with the pure ``ReadPlanner`` and reads the rows —
/// collections as ``CollectionRows``, single entities, properties, raw values, counts and links.
/// It returns values (``ReadResult``); Serialization's ``ReadResponse`` writes them.
package struct ReadOperation: Sendable {
    let call: ODataCall
    let request: ReadRequest
    let access: ReadAccess

    package init(call: ODataCall, request: ReadRequest, access: ReadAccess) {
        self.call = call
        self.request = request
        self.access = access
    }

    private var path: ResolvedPath { request.path }
    private var query: BoundQuery { request.query }

    private var service: ODataService { call.service }
    private var version: ODataVersion { call.version }
    private var planner: ReadPlanner { ReadPlanner(service: service, access: access) }

    package func run() async throws -> ReadResult {
        switch path.terminal {
        case .entities:
            guard path.target.isCollection else { return try await singleEntity() }
            if let apply = query.apply { return try await aggregated(apply) }
            let plan = try planner.plan(path, query)
            return .entities(try await rows(plan), shape: plan.shape)
        case .property(let property):
            return .property(try await propertyValue(property), property)
        case .rawValue(let property):
            let value = try await propertyValue(property)
            guard !value.isNull else {
                throw ODataError.notFound("The property \(property.name) is null, so it has no $value.")
            }
            return .rawValue(value)
        case .count:
            let plan = try planner.plan(path, query)
            var count = try await Self.count(plan.query, service)
            if count == 0 { try await requireParent() }
            // `$skip` and `$top` narrow what is counted, as they narrow the collection.
            count = max(0, count - (query.skip ?? 0))
            if let top = query.top { count = min(count, top) }
            return .count(count)
        case .links:
            return try await links()
        }
    }

    // MARK: Collections

    /// The rows of a planned collection with server-driven paging, the first chunk read: an empty
    /// one is checked for a missing parent while an error can still get its status.
    private func rows(_ plan: ReadPlan) async throws -> CollectionRows {
        let reader = CollectionReader(database: service.database, query: plan.query, sortKeys: plan.sortKeys,
                                      columnTypes: plan.columns.map(\.type))
        var limits = PageLimits(top: query.top, skip: query.skip ?? 0)
        if version >= .v2 { (limits.pageSize, limits.preferredPageSizeApplied) = pageSize() }
        if let token = query.skipToken {
            limits.continuation = try KeysetContinuation.values(fromToken: token, keys: plan.sortKeys)
        }
        let inlineCount = query.inlineCount == .allPages ? try await Self.count(plan.query, service) : nil
        let budget = call.settings.maxExpandedEntities
        let loader = ExpansionLoader(storage: service.storage, maxRows: budget)
        let expansions = plan.expansions
        var rows = CollectionRows(reader: reader, limits: limits, inlineCount: inlineCount,
                                  expansionBudget: expansions.isEmpty ? nil : budget,
                                  prepare: { rows in try await loader.load(rows, expansions) })
        if try await rows.start() == 0 { try await requireParent() }
        return rows
    }

    /// The page size: the service's, or the client's `odata.maxpagesize` when that is smaller (a
    /// client may ask for smaller pages, never for larger ones than the operator allows).
    private func pageSize() -> (size: Int, preferenceApplied: Bool) {
        let serviceSize = service.settings.pageSize ?? call.settings.pageSize
        guard let preferred = request.maxPageSize, preferred <= serviceSize else { return (serviceSize, false) }
        return (preferred, true)
    }

    /// A read with `$apply`: aggregated in one statement (``AggregatePlanner``).
    private func aggregated(_ apply: BoundApply) async throws -> ReadResult {
        let plan = try AggregatePlanner(service: service, access: access).plan(path, apply)
        let read = AggregateRead(service: service, plan: plan, query: query, set: path.target.set, pageSize: pageSize().size)
        let result = try await read.run()
        if result.rows.isEmpty { try await requireParent() }
        return .aggregated(result)
    }

    // MARK: Single values

    private func singleEntity() async throws -> ReadResult {
        let shape: EntityShape, row: [ODataValue], expansions: [ExpansionPlan]
        if let (statement, prepared) = try preparedKeyRead() {
            guard let found = try await fetchOne(statement, types: prepared.columnTypes) else {
                throw ODataError.notFound(missingMessage())
            }
            (shape, row, expansions) = (prepared.shape, found, [])
        } else {
            let plan = try planner.plan(path, query)
            guard let found = try await fetchOne(plan.query, columns: plan.columns) else {
                try await requireParent()
                throw ODataError.notFound(missingMessage())
            }
            (shape, row, expansions) = (plan.shape, found, plan.expansions)
        }
        // The shape's columns are the statement's: the same tag serves the header and the body.
        let etag = shape.entityTag(row)
        // Before the expansions are read: a current copy needs none of them.
        if let etag, request.ifNoneMatch?.matches(etag) == true { return .notModified(etag) }
        let entity = expansions.isEmpty ? EntityRow(values: row) : try await expanded(row, expansions)
        return .entity(entity, shape: shape, tag: etag)
    }

    /// One entity with its `$expand`ed entities, within the server's limit on entities inline.
    private func expanded(_ row: [ODataValue], _ expansions: [ExpansionPlan]) async throws -> EntityRow {
        let budget = call.settings.maxExpandedEntities
        let tooMany = ODataError(status: 400, code: "ExpansionTooLarge", message:
            "$expand would place more than \(budget) related entities in one response (the server's limit). Expand fewer navigation "
            + "properties or levels, or read the related entities as collections of their own (\(ResolvedPath.describe(path.steps[...]))/…), which are paged.")
        do {
            let entity = try await ExpansionLoader(storage: service.storage, maxRows: budget).load([EntityRow(values: row)], expansions)[0]
            guard entity.inlineCount <= budget else { throw tooMany }
            return entity
        } catch is ExpansionLoader.TooManyRows {
            throw tooMany
        }
    }

    /// `Set(key)` read whole (no `$select`, `$expand` or `$filter`) by a caller without a row filter on
    /// the set: the statement prepared with the service (``WholeEntityRead``), the key bound. Other
    /// reads are planned per request.
    private func preparedKeyRead() throws -> (SQLStatement, WholeEntityRead)? {
        let target = path.target
        // The prepared statement compares with `=`; a null in an inferred key needs the planned `IS NULL`.
        guard path.steps.count == 1, let key = target.key, !key.contains(where: \.isNull), query.filter == nil, query.computed.isEmpty, query.projection.selectsAll,
              query.projection.expansions.isEmpty, let prepared = service.wholeEntityReads[target.set.name],
              let sql = prepared.byKeySQL, prepared.shape.type.qualifiedName == query.projection.entityType.qualifiedName,
              try access.rowFilter(target.set.name) == nil
        else { return nil }
        return (sql.rebinding(key), prepared)
    }

    private func propertyValue(_ property: EntityProperty) async throws -> ODataValue {
        var selectQuery = PathPlanner(storage: service.storage).plan(path, columns: [property])
        try planner.restrictPath(path, &selectQuery)
        guard let row = try await fetchOne(selectQuery, columns: [property]) else {
            try await requireParent()
            throw ODataError.notFound(missingMessage())
        }
        return row[0]
    }

    private func fetchOne(_ selectQuery: SelectQuery, columns: [EntityProperty]) async throws -> [ODataValue]? {
        var limited = selectQuery
        limited.limit = 1
        // Every step of an entity path names a key or follows a single-valued navigation property.
        return try await fetchOne(SQLRenderer.render(limited, dialect: service.dialect).oneRow(), types: columns.map(\.type))
    }

    private func fetchOne(_ statement: SQLStatement, types: [EDMPrimitiveType?]) async throws -> [ODataValue]? {
        let result = try await service.database.read { try await $0.query(statement, types: types) }
        return result.rows.first
    }

    static func count(_ selectQuery: SelectQuery, _ service: ODataService) async throws -> Int {
        var counting = selectQuery
        counting.items = [SelectColumn(expression: .template(["COUNT(*)"]), alias: nil)]
        let statement = SQLRenderer.render(counting, dialect: service.dialect)
        let result = try await service.database.scan { try await $0.query(statement, types: [.int64]) }
        return Int(result.rows.first?.first?.integerValue ?? 0)
    }

    /// Throws 404 when an earlier step of the path does not exist (`Person(999)/PersonCar`), so that
    /// a missing parent is not mistaken for a parent without children.
    private func requireParent() async throws {
        guard path.steps.count > 1 else { return }
        let parentPath = ResolvedPath(steps: Array(path.steps.dropLast()), terminal: .entities)
        var parentQuery = PathPlanner(storage: service.storage).plan(parentPath, columns: [])
        try planner.restrictPath(parentPath, &parentQuery)
        parentQuery.items = [SelectColumn(expression: .template(["1"]), alias: nil)]
        guard try await fetchOne(parentQuery, columns: []) != nil else {
            throw ODataError.notFound("The entity \(ResolvedPath.describe(parentPath.steps[...])) does not exist.")
        }
    }

    private func missingMessage() -> String {
        let target = path.target
        if target.via == nil || target.key != nil {
            return "The entity \(ResolvedPath.describe(path.steps[...])) does not exist."
        }
        return "\(ResolvedPath.describe(path.steps.dropLast())) has no related \(target.via!.name)."
    }

    // MARK: Links

    /// `$links`: the keys of related entities, filtered and ordered like a collection.
    private func links() async throws -> ReadResult {
        guard let target = request.linkTarget else {
            throw ODataError.internalError("A $links read reached Execution without its link target.")
        }
        let plan = try planner.plan(target.path, target.query, entityTags: false)
        let operation = ReadOperation(call: call, request: ReadRequest(path: target.path, query: target.query, maxPageSize: request.maxPageSize), access: access)
        guard target.path.target.isCollection else {
            guard let row = try await fetchOne(plan.query, columns: plan.columns) else {
                try await operation.requireParent()
                throw ODataError.notFound(operation.missingMessage())
            }
            return .link(EntityRow(values: row), shape: plan.shape)
        }
        return .links(try await operation.rows(plan), shape: plan.shape)
    }
}
