import Foundation
import StrataCore

/// The client's hub for data tables (the Data Abstract sample's `DARemoteDataAdapter`): fetches tables by name or
/// by SQL that the server checks, and sends local changes back.
///
/// ```swift
/// let connection = Connection(baseURL: URL(string: "http://127.0.0.1:8080/")!)
/// let adapter = RemoteDataAdapter(connection: connection, service: "cardealer")
/// var people = try await adapter.table("Person", where: "lastName eq 'Smith'", orderBy: "firstName")
/// let cars = try await adapter.table(sql: "SELECT carID, make FROM Car WHERE make = :make", parameters: ["make": .string("Ford")])
/// try people.update(people.rows[0].id) { try $0.set("ssn", to: "123-45-6789") }
/// let summary = try await adapter.applyChanges(&people)
/// ```
///
/// Requests go through the ``Connection``, so its authenticator (an ``AuthSession``), default
/// headers, timeout and observers apply to them as to every other request. The reads and
/// ``applyChanges(_:mode:idempotencyKey:)-(DataTable)`` have ``AsyncRequest`` twins
/// (``tableRequest(_:where:orderBy:select:top:skip:)`` …) for the Data Abstract sample's style:
/// configure, start, cancel, watch progress, get the result on your actor. The change feed's
/// methods (``trackedTables(_:)``, ``changes(in:since:wait:)``, ``changeStream(_:filter:since:configuration:)``)
/// are plain `async` (the stream an `AsyncSequence`): a task you cancel is all they need.
public struct RemoteDataAdapter: Sendable {
    /// The data service whose tables the adapter reads and changes.
    public let dataService: DataService

    /// An adapter for the service named `service` (`cardealer`) below the connection's base URL.
    public init(connection: Connection, service: String) {
        self.init(dataService: DataService(connection: connection, path: PercentEncoding.encodePathSegmentName(service)))
    }

    /// An adapter for the tables of a data service you already use for OData requests.
    public init(dataService: DataService) {
        self.dataService = dataService
    }

    // MARK: Fetching

    /// One table, narrowed with OData query options: `where` is a `$filter` expression
    /// (`lastName eq 'Smith'`), `orderBy` an `$orderby` list, `select` the fields to read (the key
    /// fields always come too, so the rows can be changed).
    public func table(_ name: String, where filter: String? = nil, orderBy: String? = nil, select: [String] = [],
                      top: Int? = nil, skip: Int? = nil) async throws(StrataError) -> DataTable {
        try await fetchTable(name, filter: filter, orderBy: orderBy, select: select, top: top, skip: skip, progress: nil)
    }

    /// One table, narrowed by a filter built as ``ODataQuery/filter(_:)`` builds it
    /// (`Field<String>("lastName") == "Smith"`): typed where the text form is a string.
    public func table(_ name: String, where filter: QueryExpression, orderBy: String? = nil, select: [String] = [],
                      top: Int? = nil, skip: Int? = nil) async throws(StrataError) -> DataTable {
        try await table(name, where: filter.text, orderBy: orderBy, select: select, top: top, skip: skip)
    }

    /// Several whole tables in one request, in the order named.
    public func tables(_ names: [String]) async throws(StrataError) -> [DataTable] {
        try await fetchTables(names, progress: nil)
    }

    /// The result of a query in Strata's client SQL dialect. The server checks it (400 for anything
    /// outside the dialect, 403 for a table you may not read) and applies your row rules. A query
    /// of one table's own columns, key included, can be changed and sent back like a fetched table.
    public func table(sql: String, parameters: [String: ODataValue] = [:]) async throws(StrataError) -> DataTable {
        try await fetchSQL(sql, parameters: parameters, progress: nil)
    }

    // MARK: Applying changes

    /// What an apply did, besides updating the tables.
    public struct ApplySummary: Sendable, Hashable {
        /// The server's result for each change sent.
        public var response: DataTableChangeResponse
        /// True when the server had applied (some of) these changes under the same idempotency key
        /// before — a retry — and answered the stored results for them.
        public var replayed: Bool = false
        /// How many changes were stored.
        public var applied: Int { response.results.filter { $0.status == .applied }.count }
        /// How many changes failed (refused, or rolled back with an all-or-nothing delta).
        public var failed: Int { response.results.filter { $0.status == .failed }.count }
        /// How many changes met a row that changed since it was read.
        public var conflicts: Int { response.results.filter { $0.status == .conflict }.count }
        /// True when every change was stored.
        public var succeeded: Bool { applied == response.results.count }
    }

    /// Sends the local changes of one table and merges the results back (see ``applyChanges(_:mode:idempotencyKey:)-([DataTable])``).
    @discardableResult
    public func applyChanges(_ table: inout DataTable, mode: DataTableDelta.Mode = .allOrNothing,
                             idempotencyKey: IdempotencyKey? = nil) async throws(StrataError) -> ApplySummary {
        var tables = [table]
        let summary = try await applyChanges(&tables, mode: mode, idempotencyKey: idempotencyKey)
        table = tables[0]
        return summary
    }

    /// Sends the local changes of several tables in one delta and merges the results back:
    /// applied rows take the server's values (keys, defaults, trigger-set values) and become
    /// unchanged, failed rows keep their edits and carry ``DataTableRow/error``, conflicting rows
    /// carry ``DataTableRow/conflict`` to resolve with ``DataTable/resolveConflict(of:_:)``.
    ///
    /// List masters before details: inserts and updates go in table order, deletes in reverse
    /// table order, and new details may refer to new masters by their temporary keys.
    /// - Parameters:
    ///   - mode: all-or-nothing (one transaction, the default) or each change on its own.
    ///   - idempotencyKey: makes a retry safe. When the answer is lost (a timeout, a dropped
    ///     connection), send the same unchanged tables again with the same key: the server applies
    ///     each change at most once and answers the stored results (``ApplySummary/replayed``).
    ///     Use a new key (``IdempotencyKey/random()``) for new changes; the server keeps keys for its
    ///     change retention (30 days by default).
    /// - Throws: ``StrataError`` when the delta cannot be sent or read, or the server refuses it as a
    ///   whole (a malformed delta is a 400 and nothing is applied; a key reused for other changes is
    ///   a 422; a key whose first request is still running is a 409); per-row failures are results.
    @discardableResult
    public func applyChanges(_ tables: inout [DataTable], mode: DataTableDelta.Mode = .allOrNothing,
                             idempotencyKey: IdempotencyKey? = nil) async throws(StrataError) -> ApplySummary {
        let outcome = try await sendChanges(tables, mode: mode, idempotencyKey: idempotencyKey, progress: nil)
        tables = outcome.tables
        return outcome.summary
    }
}
