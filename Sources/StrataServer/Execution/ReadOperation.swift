import Foundation
import Hummingbird
import NIOCore
import StrataCore

/// Answers a GET for a resolved path: collections stream, single entities, properties, raw values,
/// counts and links.
struct ReadOperation: Sendable {
    let call: ODataCall
    let path: ResolvedPath
    let options: ReadOptions

    init(call: ODataCall, path: ResolvedPath) throws {
        self.call = call
        self.path = path
        self.options = try ReadOptions(call.url, version: call.version)
        if case .rawValue = path.terminal {} else if case .count = path.terminal {} else {
            try ContentNegotiation.requireJSON(accept: call.headers[.accept], format: options.format)
        }
    }

    private init(call: ODataCall, path: ResolvedPath, options: ReadOptions) {
        self.call = call
        self.path = path
        self.options = options
    }

    private var service: ODataService { call.service }
    private var url: ODataRequestURL { call.url }
    private var version: ODataVersion { call.version }
    private var serviceRoot: String { call.serviceRoot }
    private var pageSize: Int { call.runtime.configuration.pageSize }
    private var isHead: Bool { call.isHead }

    private var planner: PathPlanner { PathPlanner(storage: service.storage) }
    private var serializer: EntitySerializer { EntitySerializer(serviceRoot: serviceRoot, version: version) }

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
            return ODataResponse.json(writer.bytes, version: version, headRequest: isHead)
        case .rawValue(let property):
            let value = try await propertyValue(property)
            guard !value.isNull else {
                throw ODataError.notFound("The property \(property.name) is null, so it has no $value.")
            }
            return rawValueResponse(value)
        case .count:
            let count = try await count()
            if count == 0 { try await requireParent() }
            return ODataResponse.body(Array(String(count).utf8),
                                      headers: [.contentType: ODataResponse.textContentType, ODataResponse.dataServiceVersion: ODataVersion.v2.headerValue],
                                      headRequest: isHead)
        case .links(let navigation, let key):
            return try await links(navigation, key: key)
        }
    }

    // MARK: Collections

    private func collection() async throws -> Response {
        let target = path.target
        let columns = target.type.properties
        let shape = EntityShape(set: target.set, type: target.type, properties: columns)
        let query = planner.plan(path, columns: columns)
        let keys = target.type.keyProperties.map {
            SortKey(expression: .column(alias: PathPlanner.targetAlias, name: $0.name), descending: false, type: $0.type)
        }
        let reader = CollectionReader(database: service.database, query: query, sortKeys: keys, columnTypes: columns.map(\.type))
        var limits = PageLimits(top: options.top, skip: options.skip ?? 0, pageSize: version >= .v2 ? pageSize : nil)
        if let token = options.skipToken {
            limits.continuation = try KeysetContinuation.values(fromToken: token, keys: keys)
        }
        let inlineCount = options.inlineCount ? try await count() : nil
        let serializer = self.serializer
        var stream = CollectionStream(
            reader: reader, limits: limits, version: version, inlineCount: inlineCount,
            writeRow: { row, writer in serializer.write(row, shape: shape, into: &writer) },
            nextLink: nextLink)
        return try await streamed(&stream)
    }

    /// Starts a collection response: the first chunk is read now (errors still get a status), the rest streams.
    private func streamed(_ stream: inout CollectionStream) async throws -> Response {
        let first = try await stream.start()
        if stream.rowCount == 0 { try await requireParent() }
        var headers: HTTPFields = [.contentType: ODataResponse.jsonContentType, ODataResponse.dataServiceVersion: version.headerValue]
        if isHead { return Response(status: .ok, headers: headers, body: ResponseBody()) }
        headers[.contentLength] = nil
        let remaining = stream
        let body = ResponseBody { writer in
            var stream = remaining
            try await writer.write(ByteBuffer(bytes: first))
            while let bytes = try await stream.nextBytes() {
                if !bytes.isEmpty { try await writer.write(ByteBuffer(bytes: bytes)) }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// The `__next` link: this request's URL with the continuation token, without `$skip`
    /// (already applied) and with `$top` reduced to the rows still wanted.
    private var nextLink: @Sendable ([ODataValue], Int?) -> String {
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

    // MARK: Single values

    private func singleEntity() async throws -> Response {
        let target = path.target
        let columns = target.type.properties
        guard let row = try await fetchOne(columns: columns) else {
            try await requireParent()
            throw ODataError.notFound(missingMessage())
        }
        let etag = EntityTag.of(type: target.type, columns: columns, row: row)
        if let etag, try EntityTag.isNotModified(etag, headers: call.headers) { return EntityTag.notModifiedResponse(etag) }
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("d")
        serializer.write(EntityRow(values: row), shape: EntityShape(set: target.set, type: target.type, properties: columns), into: &writer)
        writer.endObject()
        return ODataResponse.json(writer.bytes, version: version, headRequest: isHead, extraHeaders: etag.map { [.eTag: $0.headerValue] } ?? [:])
    }

    private func propertyValue(_ property: EntityProperty) async throws -> ODataValue {
        guard let row = try await fetchOne(columns: [property]) else {
            try await requireParent()
            throw ODataError.notFound(missingMessage())
        }
        return row[0]
    }

    private func fetchOne(columns: [EntityProperty]) async throws -> [ODataValue]? {
        var query = planner.plan(path, columns: columns)
        query.limit = 1
        let statement = SQLRenderer.render(query, dialect: service.dialect)
        let result = try await service.database.read { try await $0.query(statement, types: columns.map(\.type)) }
        return result.rows.first
    }

    private func count() async throws -> Int {
        var query = planner.plan(path, columns: [])
        query.items = [SelectColumn(expression: .template([.text("COUNT(*)")]), alias: nil)]
        let statement = SQLRenderer.render(query, dialect: service.dialect)
        let result = try await service.database.read { try await $0.query(statement, types: [.int64]) }
        return Int(result.rows.first?.first?.integerValue ?? 0)
    }

    /// Throws 404 when an earlier step of the path does not exist (`Person(999)/PersonCar`), so that
    /// a missing parent is not mistaken for a parent without children.
    private func requireParent() async throws {
        guard path.steps.count > 1 else { return }
        let parentSteps = path.steps.dropLast()
        var query = planner.plan(steps: parentSteps, columns: [])
        query.items = [SelectColumn(expression: .template([.text("1")]), alias: nil)]
        query.limit = 1
        let statement = SQLRenderer.render(query, dialect: service.dialect)
        let result = try await service.database.read { try await $0.query(statement) }
        if result.rows.isEmpty {
            throw ODataError.notFound("The entity \(describe(parentSteps)) does not exist.")
        }
    }

    private func missingMessage() -> String {
        let target = path.target
        if target.via == nil || target.key != nil {
            return "The entity \(describe(path.steps[...])) does not exist."
        }
        return "\(describe(path.steps.dropLast())) has no related \(target.via!.name)."
    }

    private func describe(_ steps: ArraySlice<ResolvedPath.Step>) -> String {
        steps.map { step in
            let name = step.via?.name ?? step.set.name
            guard let key = step.key else { return name }
            let pairs = zip(step.type.keyNames, key).map { (name: $0, value: $1) }
            return name + KeyPredicate.forKey(pairs).urlText
        }.joined(separator: "/")
    }

    private func rawValueResponse(_ value: ODataValue) -> Response {
        if case .binary(let data) = value {
            return ODataResponse.body(Array(data), headers: [.contentType: "application/octet-stream",
                                                             ODataResponse.dataServiceVersion: version.headerValue], headRequest: isHead)
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
                                                             ODataResponse.dataServiceVersion: version.headerValue], headRequest: isHead)
    }

    // MARK: Links

    /// `$links`: the URIs of related entities, `{"uri":…}` each.
    private func links(_ navigation: NavigationProperty, key: [ODataValue]?) async throws -> Response {
        guard let targetSet = service.model.entitySet(named: navigation.targetSet) else {
            throw ODataError.notFound("The entity set \(navigation.targetSet) is not available.")
        }
        let targetType = service.model.entityType(of: targetSet)
        var steps = path.steps
        steps.append(ResolvedPath.Step(set: targetSet, type: targetType, via: navigation, key: key))
        let linkPath = ResolvedPath(steps: steps, terminal: .entities)
        let keyColumns = targetType.keyProperties
        let shape = EntityShape(set: targetSet, type: targetType, properties: keyColumns, navigations: [])
        let root = serviceRoot
        let writeLink: @Sendable (EntityRow, inout JSONWriter) -> Void = { row, writer in
            writer.beginObject()
            writer.key("uri")
            writer.string(root + shape.relativeURI(row.values))
            writer.endObject()
        }
        if !linkPath.target.isCollection {
            let operation = ReadOperation(call: call, path: linkPath, options: options)
            guard let row = try await operation.fetchOne(columns: keyColumns) else {
                try await operation.requireParent()
                throw ODataError.notFound(operation.missingMessage())
            }
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("d")
            writeLink(EntityRow(values: row), &writer)
            writer.endObject()
            return ODataResponse.json(writer.bytes, version: version, headRequest: isHead)
        }
        let query = PathPlanner(storage: service.storage).plan(linkPath, columns: keyColumns)
        let sortKeys = keyColumns.map {
            SortKey(expression: .column(alias: PathPlanner.targetAlias, name: $0.name), descending: false, type: $0.type)
        }
        let reader = CollectionReader(database: service.database, query: query, sortKeys: sortKeys, columnTypes: keyColumns.map(\.type))
        let operation = ReadOperation(call: call, path: linkPath, options: options)
        var limits = PageLimits(top: options.top, skip: options.skip ?? 0, pageSize: version >= .v2 ? pageSize : nil)
        if let token = options.skipToken {
            limits.continuation = try KeysetContinuation.values(fromToken: token, keys: sortKeys)
        }
        var stream = CollectionStream(reader: reader, limits: limits, version: version,
                                      inlineCount: options.inlineCount ? try await operation.count() : nil,
                                      writeRow: writeLink, nextLink: nextLink)
        return try await operation.streamed(&stream)
    }
}
