import HTTPTypes
import Hummingbird
import StrataCore
import StrataOData
import StrataStorage

/// `GET /{service}/$tables/{Table}` with `$filter`, `$orderby`, `$top`, `$skip` and `$select`, and
/// `GET /{service}/$tables?names=A,B`: whole tables in the compact form (``CompactTable``), streamed.
///
/// Reads go through the OData read planner, so the caller's read rights and row filters apply
/// exactly as they do to `GET /{service}/{Table}`. `$select` keeps the key fields, so that rows
/// of a narrowed table can still be changed and sent back.
package struct TablesOperation: Sendable {
    let call: ODataCall
    /// The Authorization step for this call: each table the request names is authorized through it.
    let authorizer: Authorizer
    /// The change feed's first token (`track=1`), written after the tables; its options are allowed.
    var token: String?
    var feedOptions: Set<String> = []

    package init(call: ODataCall, authorizer: Authorizer, token: String? = nil, feedOptions: Set<String> = []) {
        self.call = call
        self.authorizer = authorizer
        self.token = token
        self.feedOptions = feedOptions
    }

    /// More tables than this in one request is refused: each is a separate read.
    static let maximumTables = 64

    package func respond() async throws -> Response {
        guard call.method == .get || call.method == .head else {
            throw ODataError.methodNotAllowed("$tables is read with GET; send changes to $changes.")
        }
        try ContentNegotiation.requireJSON(accept: call.headers[.accept], format: call.url.value(of: "$format"))
        let segments = call.url.path.segments
        guard segments[0].key == nil, segments.count <= 2 else {
            throw ODataError.badRequest("Address one table as $tables/Table, or several as $tables?names=A,B.")
        }
        let options = try QueryOptions(parsing: call.url.rawQuery, limits: call.settings.queryLimits)
        let stream: CompactTableStream
        if segments.count == 2 {
            guard segments[1].key == nil else {
                throw ODataError.badRequest("$tables/\(segments[1].name) takes no key; narrow the rows with $filter.")
            }
            try refuse(options, allowingNames: false)
            stream = CompactTableStream(tables: [try await table(named: segments[1].name, options: options)], wrapped: false, token: token)
        } else {
            try refuse(options, allowingNames: true)
            if options.filter != nil || !options.orderBy.isEmpty || options.top != nil || options.skip != nil || !options.select.isEmpty {
                throw ODataError.badRequest("Query options apply to one table: use $tables/Table?$filter=… for each table that needs them.")
            }
            var tables: [CompactTableStream.Table] = []
            for name in try names() {
                tables.append(try await table(named: name, options: QueryOptions()))
            }
            stream = CompactTableStream(tables: tables, wrapped: true, token: token)
        }
        if call.isHead {
            return Response(status: .ok, headers: [.contentType: ODataResponse.jsonContentType], body: ResponseBody())
        }
        return try await CompactTableStream.response(stream)
    }

    /// Plans one table's read: the caller's rights and row filter, the options, the fields.
    private func table(named name: String, options: QueryOptions) async throws -> CompactTableStream.Table {
        let model = call.service.model
        guard let set = model.entitySet(named: name) else {
            let names = model.entitySets.map(\.name).joined(separator: ", ")
            throw ODataError.notFound("There is no table named '\(name.prefix(100))' in \(call.service.name). Tables: \(names).")
        }
        let type = model.entityType(of: set)
        let bound = try QueryBinder(model: model).bind(options, to: type)
        let path = ResolvedPath(steps: [ResolvedPath.Step(set: set, type: type, via: nil, key: nil)], terminal: .entities)
        let access = try await authorizer.readAccess(path, bound)
        let plan = try ReadPlanner(service: call.service, access: access).plan(path, bound)
        let reader = CollectionReader(database: call.service.database, query: plan.query, sortKeys: plan.sortKeys,
                                      columnTypes: plan.columns.map(\.type))
        // The plan reads whole rows (ETags need them); the table keeps what $select names and the key.
        let written = Set(plan.shape.writtenProperties).union(plan.shape.keyPositions)
        let positions = plan.columns.indices.filter(written.contains)
        let allowClientKeys = call.service.settings.allowClientKeys
        let fields = positions.map { TableFields.field(plan.columns[$0], of: type, in: set, allowClientKeys: allowClientKeys) }
        return CompactTableStream.Table(name: set.name, fields: fields, positions: positions, reader: reader, top: bound.top, skip: bound.skip ?? 0)
    }

    /// The `names` option: table names separated by commas, each once.
    private func names() throws(ODataError) -> [String] {
        guard let list = call.url.value(of: "names") else {
            throw ODataError.badRequest("Name the tables as $tables?names=A,B, or address one as $tables/Table.")
        }
        let names = list.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingWhitespace() }
        guard !names.contains(where: \.isEmpty) else {
            throw ODataError.badRequest("names lists table names separated by commas, without empty entries.")
        }
        guard names.count <= Self.maximumTables else {
            throw ODataError.badRequest("names lists \(names.count) tables; at most \(Self.maximumTables) can be read in one request.")
        }
        var seen = Set<String>()
        for name in names where !seen.insert(name).inserted {
            throw ODataError.badRequest("names lists \(name.prefix(100)) twice.")
        }
        return names
    }

    private func refuse(_ options: QueryOptions, allowingNames: Bool) throws(ODataError) {
        if !options.expand.isEmpty { throw .badRequest("$expand does not apply to $tables: fetch related tables by name and join them on the client.") }
        if options.inlineCount != nil { throw .badRequest("$inlinecount does not apply to $tables: every row is in the answer.") }
        if options.skipToken != nil { throw .badRequest("$skiptoken does not apply to $tables: the answer is never paged.") }
        for option in options.customOptions where !(allowingNames && option.name == "names") && !feedOptions.contains(option.name) {
            throw .badRequest("$tables does not know the option '\(option.name.prefix(60))'.")
        }
    }
}
