import Hummingbird
import StrataCore
import StrataSQL
import StrataOData
import StrataStorage
import StrataIdentity

/// `POST /{service}/$sql`: a query in Strata's client SQL dialect, answered as a compact table.
///
/// The text is parsed and checked by StrataCore (``ClientSQL``) against the service's catalog and
/// the request's parameters; anything outside the dialect is a 400 and nothing reaches the
/// database. The caller must be allowed to read every table the query names (403 otherwise), and
/// each table reference is replaced by a `SELECT` of that table narrowed by the caller's row
/// filter, rendered into the statement's own binder. The checked statement is then written anew for
/// the service's database with every value bound.
struct SQLQueryOperation: Sendable {
    let call: ODataCall
    /// The Authorization step for this call: each table the request names is authorized through it.
    let authorizer: Authorizer
    let body: [UInt8]

    static let shape = #"{"sql":"SELECT …","parameters":{"name":value}}"#

    func respond() async throws -> Response {
        try DataTableBody.require(call, body: body, endpoint: "$sql", shape: Self.shape)
        let request: DataTableQuery
        do {
            request = try DataTableQuery(json: body)
        } catch {
            throw error.odataError
        }
        let model = call.service.model
        let checked = try ClientSQL.check(request.sql, catalog: call.service.dataTables.sqlCatalog, parameters: request.parameters)
        let sources = try await tableSources(checked)
        try await CrossJoinGuard(limit: call.settings.sqlCrossJoinLimit)
            .check(checked, service: call.service, sizes: call.service.dataTables.tableSizes)
        let limit = call.settings.sqlRowLimit
        let statement = try Self.statement(checked, service: call.service, sources: sources, rowLimit: limit)
        let types: [EDMPrimitiveType?] = checked.columns.map(\.type)
        // The rows are held whole before they are written: their bytes are bounded as they are read.
        var limits = StatementLimits.current
        limits.maxResultBytes = call.settings.maxBufferedResponse
        let result = try await StatementLimits.$current.withValue(limits) {
            try await call.service.database.scan { connection in
                try await connection.query(statement, types: types)
            }
        }
        guard result.rows.count <= limit else {
            throw ODataError.badRequest("The query returns more than \(limit) rows; add LIMIT and OFFSET to read it in parts, or read whole tables through $tables, which streams.")
        }
        let described = TableFields.fields(for: checked, model: model, allowClientKeys: call.service.settings.allowClientKeys)
        let table = CompactTable(name: described.name, fields: described.fields, rows: result.rows)
        return ODataResponse.json(table.jsonBytes, version: nil, headRequest: call.isHead)
    }

    /// The statement that answers a checked query on a service, reading each table through its
    /// source (by table name; a table without one is read directly). Kept apart from the request so
    /// tests can ask the database how it runs exactly this statement.
    static func statement(
        _ checked: SQLCheckedStatement, service: ODataService, sources: [String: Source], rowLimit: Int
    ) throws(ODataError) -> SQLStatement {
        let storage = service.storage
        // One row past the limit tells a result that is too large from one that just fits.
        return try checked.emit(for: service.dialect, rowLimit: rowLimit, dateForms: storage.dateForms) { table throws(ODataError) in
            guard let source = sources[table.table] else { return nil }
            // The source's columns keep their database names: the emitted query refers to them so.
            let columns = source.type.properties.map { SelectColumn(expression: .column(alias: "s", name: storage.column($0.name, of: source.type)), alias: nil) }
            var query = SelectQuery(items: columns, from: storage.table(source.set.name), alias: "s")
            if let filter = source.filter {
                query.filter(RowFilterSQL(storage: storage).condition(filter, alias: "s", set: source.set, type: source.type))
            }
            return query
        }
    }

    /// A catalog table as the query reads it: the table, and the row filter the caller is held to.
    struct Source: Sendable {
        var set: EntitySet
        var type: EntityType
        var filter: BoundExpression?
    }

    /// Asks the access policy about every table the query reads (throwing its 401 or 403), and
    /// decides for each whether it needs a narrowing `SELECT` (``source(_:filter:service:)``).
    private func tableSources(_ checked: SQLCheckedStatement) async throws -> [String: Source] {
        let model = call.service.model
        var sources: [String: Source] = [:]
        var asked = Set<String>()
        for reference in checked.tables where asked.insert(reference.table).inserted {
            guard let set = model.entitySet(named: reference.table) else {
                throw ODataError.badRequest("The table \(reference.table) is not available.")
            }
            let access = try await authorizer.authorize(.read, set.name)
            sources[set.name] = Self.source(set, filter: access.filter, service: call.service)
        }
        return sources
    }

    /// How the query reads one table: through a narrowing `SELECT` when the caller has a row filter,
    /// and always on PostgreSQL, where a service's tables live in its own schema; nil reads it directly.
    static func source(_ set: EntitySet, filter: BoundExpression?, service: ODataService) -> Source? {
        guard filter != nil || service.storage.schema != nil else { return nil }
        return Source(set: set, type: service.model.entityType(of: set), filter: filter)
    }
}
