import Foundation
import Hummingbird
import NIOCore
import StrataCore
import StrataSQL

/// Answers a GET for a resolved path: collections stream, single entities, properties, raw values,
/// counts and links — with `$filter`, `$orderby`, `$top`, `$skip`, `$select`, `$expand`,
/// `$inlinecount` and `$skiptoken` where they apply.
struct ReadOperation: Sendable {
    let call: ODataCall
    let path: ResolvedPath
    let query: BoundQuery

    init(call: ODataCall, path: ResolvedPath) throws {
        self.call = call
        self.path = path
        self.query = try ReadQuery.bind(call, path)
        switch path.terminal {
        case .rawValue, .count: break
        default: try ContentNegotiation.requireJSON(accept: call.headers[.accept], format: query.format)
        }
    }

    private var service: ODataService { call.service }
    private var version: ODataVersion { call.version }
    private var serializer: EntitySerializer { EntitySerializer(serviceRoot: call.serviceRoot, version: version) }

    func respond() async throws -> Response {
        switch path.terminal {
        case .entities:
            return path.target.isCollection ? try await collection() : try await singleEntity()
        case .property(let property):
            let value = try await propertyValue(property)
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("d")
            writer.beginObject()
            writer.key(property.name)
            serializer.writeValue(value, property: property, into: &writer)
            writer.endObject()
            writer.endObject()
            return ODataResponse.json(writer.bytes, version: version, headRequest: call.isHead)
        case .rawValue(let property):
            let value = try await propertyValue(property)
            guard !value.isNull else {
                throw ODataError.notFound("The property \(property.name) is null, so it has no $value.")
            }
            return RawValue.response(value, version: version, headRequest: call.isHead)
        case .count:
            let plan = try await ReadPlanner(call: call).plan(path, query)
            var count = try await Self.count(plan.query, service)
            if count == 0 { try await requireParent() }
            // `$skip` and `$top` narrow what is counted, as they narrow the collection.
            count = max(0, count - (query.skip ?? 0))
            if let top = query.top { count = min(count, top) }
            return ODataResponse.body(Array(String(count).utf8),
                                      headers: [.contentType: ODataResponse.textContentType, ODataResponse.dataServiceVersion: ODataVersion.v2.headerValue],
                                      headRequest: call.isHead)
        case .links(let navigation, let key):
            return try await links(navigation, key: key)
        }
    }

    // MARK: Collections

    private func collection() async throws -> Response {
        let plan = try await ReadPlanner(call: call).plan(path, query)
        let serializer = self.serializer
        let shape = plan.shape
        return try await stream(plan) { row, writer in serializer.write(row, shape: shape, into: &writer) }
    }

    /// Streams a planned collection, each row written by `writeRow`, with server-driven paging.
    private func stream(_ plan: ReadPlan, writeRow: @escaping @Sendable (EntityRow, inout JSONWriter) -> Void) async throws -> Response {
        let reader = CollectionReader(database: service.database, query: plan.query, sortKeys: plan.sortKeys,
                                      columnTypes: plan.columns.map(\.type))
        var limits = PageLimits(top: query.top, skip: query.skip ?? 0,
                                pageSize: version >= .v2 ? call.service.settings.pageSize ?? call.runtime.configuration.pageSize : nil)
        if let token = query.skipToken {
            limits.continuation = try KeysetContinuation.values(fromToken: token, keys: plan.sortKeys)
        }
        let inlineCount = query.inlineCount == .allPages ? try await Self.count(plan.query, service) : nil
        let loader = ExpansionLoader(storage: service.storage)
        let expansions = plan.expansions
        var stream = CollectionStream(
            reader: reader, limits: limits, version: version, inlineCount: inlineCount, writeRow: writeRow,
            prepare: { rows in try await loader.load(rows, expansions) },
            nextLink: NextLink.builder(serviceRoot: call.serviceRoot, url: call.url))
        let first = try await stream.start()
        if stream.rowCount == 0 { try await requireParent() }
        var headers: HTTPFields = [.contentType: ODataResponse.jsonContentType, ODataResponse.dataServiceVersion: version.headerValue]
        if call.isHead { return Response(status: .ok, headers: headers, body: ResponseBody()) }
        headers[.contentLength] = nil
        return ODataResponse.streamed(first: first, rest: stream, headers: headers)
    }

    // MARK: Single values

    private func singleEntity() async throws -> Response {
        let shape: EntityShape, row: [ODataValue], expansions: [ExpansionPlan]
        if let (statement, prepared) = try await preparedKeyRead() {
            guard let found = try await fetchOne(statement, types: prepared.columnTypes) else {
                throw ODataError.notFound(missingMessage())
            }
            (shape, row, expansions) = (prepared.shape, found, [])
        } else {
            let plan = try await ReadPlanner(call: call).plan(path, query)
            guard let found = try await fetchOne(plan.query, columns: plan.columns) else {
                try await requireParent()
                throw ODataError.notFound(missingMessage())
            }
            (shape, row, expansions) = (plan.shape, found, plan.expansions)
        }
        // The shape's columns are the statement's: the same tag serves the header and the body.
        let etag = shape.entityTag(row)
        if let etag, try EntityTag.isNotModified(etag, headers: call.headers) { return EntityTag.notModifiedResponse(etag) }
        let entity = expansions.isEmpty
            ? EntityRow(values: row)
            : try await ExpansionLoader(storage: service.storage).load([EntityRow(values: row)], expansions)[0]
        // An entity with its metadata and deferred links outgrows the default 256 bytes; growing twice
        // cost more than the larger buffer.
        var writer = JSONWriter(capacity: 1024)
        writer.beginObject()
        writer.key("d")
        serializer.write(entity, shape: shape, tag: etag, into: &writer)
        writer.endObject()
        return ODataResponse.json(writer.bytes, version: version, headRequest: call.isHead, eTag: etag?.headerValue)
    }

    /// `Set(key)` read whole (no `$select`, `$expand` or `$filter`) by a caller without a row filter on
    /// the set: the statement prepared with the service (``WholeEntityRead``), the key bound. Other
    /// reads are planned per request.
    private func preparedKeyRead() async throws -> (SQLStatement, WholeEntityRead)? {
        let target = path.target
        guard path.steps.count == 1, let key = target.key, query.filter == nil, query.projection.selectsAll,
              query.projection.expansions.isEmpty, let prepared = service.wholeEntityReads[target.set.name],
              let sql = prepared.byKeySQL, prepared.shape.type.qualifiedName == query.projection.entityType.qualifiedName,
              try await call.authorize(.read, target.set.name).filter == nil
        else { return nil }
        return (sql.rebinding(key), prepared)
    }

    private func propertyValue(_ property: EntityProperty) async throws -> ODataValue {
        var selectQuery = PathPlanner(storage: service.storage).plan(path, columns: [property])
        try await ReadPlanner(call: call).restrictPath(path, &selectQuery)
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
        try await ReadPlanner(call: call).restrictPath(parentPath, &parentQuery)
        parentQuery.items = [SelectColumn(expression: .template(["1"]), alias: nil)]
        guard try await fetchOne(parentQuery, columns: []) != nil else {
            throw ODataError.notFound("The entity \(Self.describe(parentPath.steps[...])) does not exist.")
        }
    }

    private func missingMessage() -> String {
        let target = path.target
        if target.via == nil || target.key != nil {
            return "The entity \(Self.describe(path.steps[...])) does not exist."
        }
        return "\(Self.describe(path.steps.dropLast())) has no related \(target.via!.name)."
    }

    static func describe(_ steps: ArraySlice<ResolvedPath.Step>) -> String {
        steps.map { step in
            let name = step.via?.name ?? step.set.name
            guard let key = step.key else { return name }
            let pairs = zip(step.type.keyNames, key).map { (name: $0, value: $1) }
            return name + KeyPredicate.forKey(pairs).urlText
        }.joined(separator: "/")
    }

    // MARK: Links

    /// `$links`: the URIs of related entities, `{"uri":…}` each, filtered and ordered like a collection.
    private func links(_ navigation: NavigationProperty, key: [ODataValue]?) async throws -> Response {
        guard let targetSet = service.model.entitySet(named: navigation.targetSet) else {
            throw ODataError.notFound("The entity set \(navigation.targetSet) is not available.")
        }
        let targetType = service.model.entityType(of: targetSet)
        let linkPath = ResolvedPath(steps: path.steps + [ResolvedPath.Step(set: targetSet, type: targetType, via: navigation, key: key)],
                                    terminal: .entities)
        var keysOnly = query
        keysOnly.projection = BoundProjection(entityType: targetType, properties: targetType.keyProperties,
                                              navigationLinks: [], expansions: [], selectsAll: false)
        let plan = try await ReadPlanner(call: call).plan(linkPath, keysOnly, entityTags: false)
        let root = call.serviceRoot
        let shape = plan.shape
        let writeLink: @Sendable (EntityRow, inout JSONWriter) -> Void = { row, writer in
            writer.beginObject()
            writer.key("uri")
            writer.string(root + shape.relativeURI(row.values))
            writer.endObject()
        }
        guard linkPath.target.isCollection else {
            let operation = ReadOperation(call: call, path: linkPath, query: keysOnly)
            guard let row = try await fetchOne(plan.query, columns: plan.columns) else {
                try await operation.requireParent()
                throw ODataError.notFound(operation.missingMessage())
            }
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("d")
            writeLink(EntityRow(values: row), &writer)
            writer.endObject()
            return ODataResponse.json(writer.bytes, version: version, headRequest: call.isHead)
        }
        return try await ReadOperation(call: call, path: linkPath, query: keysOnly).stream(plan, writeRow: writeLink)
    }

    private init(call: ODataCall, path: ResolvedPath, query: BoundQuery) {
        self.call = call
        self.path = path
        self.query = query
    }
}

/// The `__next` link of a page: the request's URL with the position after its last row in
/// `$skiptoken`, without `$skip` (already applied) and with `$top` reduced to the rows still wanted.
enum NextLink {
    static func builder(serviceRoot: String, url: ODataRequestURL) -> @Sendable ([ODataValue], Int?) -> String {
        let base = serviceRoot + url.path.urlText
        let items = url.queryItems
        return { position, remainingTop in
            var query: [String] = []
            for item in items where !["$skiptoken", "$skip", "$top"].contains(item.name) {
                query.append(PercentEncoding.encodeQueryValue(item.name) + "=" + PercentEncoding.encodeQueryValue(item.value))
            }
            if let remainingTop { query.append("$top=\(remainingTop)") }
            query.append("$skiptoken=" + PercentEncoding.encodeQueryValue(KeysetContinuation.token(position)))
            return base + "?" + query.joined(separator: "&")
        }
    }
}

/// `$value`: a property's raw value as text (or bytes for binary).
enum RawValue {
    static func response(_ value: ODataValue, version: ODataVersion, headRequest: Bool) -> Response {
        if case .binary(let data) = value {
            return ODataResponse.body(Array(data), headers: [.contentType: "application/octet-stream",
                                                             ODataResponse.dataServiceVersion: version.headerValue], headRequest: headRequest)
        }
        let text: String
        switch value {
        case .string(let s): text = s
        case .dateTime(let d): text = d.isoString
        case .dateTimeOffset(let d): text = d.isoString
        case .time(let t): text = t.durationString
        case .guid(let g): text = g.uuidString.lowercased()
        case .decimal(let d): text = d.description
        case .int64(let v): text = String(v)
        default:
            var literal = ODataLiteral.format(value)
            if literal.hasSuffix("d") || literal.hasSuffix("f") { literal.removeLast() }
            text = literal
        }
        return ODataResponse.body(Array(text.utf8), headers: [.contentType: ODataResponse.textContentType,
                                                             ODataResponse.dataServiceVersion: version.headerValue], headRequest: headRequest)
    }
}
