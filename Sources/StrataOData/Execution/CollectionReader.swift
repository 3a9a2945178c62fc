import StrataCore
import StrataSQL
import StrataStorage

/// Reads the entities of a collection in chunks, each chunk a keyset continuation of the one before,
/// so that memory stays bounded however large the collection is.
package struct CollectionReader: Sendable {
    package let database: any Database
    /// The entities' query: selected columns, joins and filters; no order or limit yet.
    let query: SelectQuery
    /// Total order of the collection; ends with the entity key.
    let sortKeys: [SortKey]
    /// EDM types of the query's selected columns.
    let columnTypes: [EDMPrimitiveType?]

    package init(database: any Database, query: SelectQuery, sortKeys: [SortKey], columnTypes: [EDMPrimitiveType?]) {
        self.database = database
        self.query = query
        self.sortKeys = sortKeys
        self.columnTypes = columnTypes
    }

    package struct Row: Sendable {
        /// The selected columns' values, then the sort keys' values: the row as the database
        /// answered it. One array per row, not two: a `$tables` download writes a million rows
        /// from these and needs only the last one's position.
        package let cells: [ODataValue]
        /// How many of ``cells`` are selected columns.
        let width: Int

        /// The selected columns' values.
        package var values: [ODataValue] { width == cells.count ? cells : Array(cells[..<width]) }
        /// The row's sort key values, naming its position for the next chunk.
        package var position: [ODataValue] { Array(cells[width...]) }
    }

    /// Up to `limit` rows after `position` (or, on the first chunk, after skipping `offset` rows).
    package func fetch(limit: Int, offset: Int, after position: [ODataValue]?) async throws -> [Row] {
        let statement = SQLRenderer.render(chunkQuery(limit: limit, offset: offset, after: position), dialect: database.dialect)
        let types = columnTypes + sortKeys.map(\.type)
        let result = try await database.scan { connection in
            try await connection.query(statement, types: types)
        }
        let width = columnTypes.count
        return result.rows.map { Row(cells: $0, width: width) }
    }

    func chunkQuery(limit: Int, offset: Int, after position: [ODataValue]?) -> SelectQuery {
        var chunk = query
        for (index, key) in sortKeys.enumerated() {
            chunk.items.append(SelectColumn(expression: key.expression, alias: "s\(index)"))
        }
        if let position {
            chunk.filter(KeysetContinuation.after(position, keys: sortKeys))
        }
        chunk.orderBy = sortKeys.map(\.orderTerm)
        chunk.limit = limit
        chunk.offset = offset
        return chunk
    }
}

/// How many rows a response may hold and where it starts.
struct PageLimits: Sendable {
    /// `$top`: rows requested in all pages together; nil for all.
    var top: Int?
    /// `$skip`, applied before the first row of the first page.
    var skip: Int = 0
    /// Server-driven page size; nil when the response must hold every row (V1 clients cannot follow `__next`).
    var pageSize: Int?
    /// Whether ``pageSize`` is the client's `odata.maxpagesize`: the response says so in `Preference-Applied`.
    var preferredPageSizeApplied = false
    /// From `$skiptoken`: continue after this position.
    var continuation: [ODataValue]?
    /// Rows per database round trip while streaming.
    var chunkSize: Int = 1000
}
