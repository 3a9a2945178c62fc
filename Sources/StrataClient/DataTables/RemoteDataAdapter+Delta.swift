import Foundation
import StrataCore

/// Tables read with change tracking: the rows, and the token to ask for what changed since.
public struct TrackedTables: Sendable {
    /// The tables, in the order named.
    public var tables: [DataTable]
    /// The token for ``RemoteDataAdapter/changes(in:since:wait:)`` and
    /// ``RemoteDataAdapter/changeStream(_:filter:since:configuration:)``; nil when tracking was not asked for.
    public var token: String?

    /// Tables and their token.
    public init(tables: [DataTable], token: String?) {
        self.tables = tables
        self.token = token
    }
}

/// What changed in data tables since a token, every page of it: apply it with
/// ``DataTable/apply(_:)`` or ``Briefcase/apply(_:)-(TableDelta)``.
public struct TableDelta: Sendable, Hashable {
    /// Per table, in the order named: rows inserted or changed (current values) and deleted keys.
    public var tables: [CompactTable]
    /// The token for the changes after this delta.
    public var token: String

    /// A delta ending at `token`.
    public init(tables: [CompactTable], token: String) {
        self.tables = tables
        self.token = token
    }

    /// True when no table has a row or a deleted key.
    public var isEmpty: Bool { tables.allSatisfy { $0.rows.isEmpty && ($0.deleted ?? []).isEmpty } }

    /// Adds a later page: a key in the later page replaces what earlier pages said of it.
    mutating func append(_ page: [CompactTable]) {
        for later in page {
            guard let index = tables.firstIndex(where: { $0.name == later.name }) else {
                tables.append(later)
                continue
            }
            var table = tables[index]
            let laterKeys = Set(later.rows.map(later.key(of:)) + (later.deleted ?? []))
            if !laterKeys.isEmpty {
                let positions = table.keyPositions
                table.rows.removeAll { row in laterKeys.contains(positions.map { row[$0] }) }
                table.deleted?.removeAll { laterKeys.contains($0) }
            }
            table.rows += later.rows
            table.deleted = (table.deleted ?? []) + (later.deleted ?? [])
            tables[index] = table
        }
    }
}

extension RemoteDataAdapter {
    /// Several whole tables in one request, with the token to follow their changes from
    /// (`$tables?names=…&track=1`): the start of a replica.
    ///
    /// ```swift
    /// let first = try await adapter.trackedTables(["Person", "Car"])
    /// var briefcase = Briefcase(tables: first.tables)
    /// briefcase.deltaToken = first.token
    /// // later:
    /// let delta = try await adapter.changes(in: ["Person", "Car"], since: briefcase.deltaToken!)
    /// try briefcase.apply(delta)
    /// ```
    /// - Throws: ``StrataError`` (400 naming a table that is not tracked), or
    ///   ``StrataError/Kind/invalidResponse`` when no token came.
    public func trackedTables(_ names: [String]) async throws(StrataError) -> TrackedTables {
        let response = try await dataService.send(StrataRequest(.get, dataService.rootPath + "$tables?names=" + Self.list(names) + "&track=1"))
        let document = try Self.delta(in: response)
        guard document.tables.map(\.name) == names else {
            throw ResponseReader.invalid(response, "The server answered the tables \(document.tables.map(\.name)) for \(names).")
        }
        guard let token = document.token else {
            throw ResponseReader.invalid(response, "The server gave no token for the tracked tables \(names).")
        }
        return TrackedTables(tables: document.tables.map { DataTable(name: $0.name, fields: $0.fields, rows: $0.rows) }, token: token)
    }

    /// What changed in the tables since `token` (`$tables?names=…&since=…`), following the
    /// server's `next` pages until the one with the new token.
    ///
    /// - Parameters:
    ///   - names: the same tables, in the same order, as the tracked fetch that gave the first token.
    ///   - wait: seconds to wait for changes when there are none yet (long-poll, at most 60): the
    ///     answer comes as soon as there are some, else an empty delta with a new token.
    /// - Throws: ``StrataError/Kind/deltaTokenGone`` (410) when the token can no longer be used
    ///   (expired, pruned, rights or model changed): fetch the tables again with
    ///   ``trackedTables(_:)``, keeping unsent local changes.
    public func changes(in names: [String], since token: String, wait: Int? = nil) async throws(StrataError) -> TableDelta {
        try await followDelta(dataService.rootPath + "$tables?names=" + Self.list(names) + "&since=" + PercentEncoding.encodeQueryValue(token),
                              wait: wait)
    }

    /// One table, narrowed like ``table(_:where:orderBy:select:top:skip:)`` (a replica's "defining
    /// query"), with the token to follow its changes from (`$tables/Car?$filter=…&track=1`).
    ///
    /// The token covers this table with this `where` and `select`: ask for its changes with the
    /// same values in ``changes(in:where:select:since:wait:)``.
    /// - Parameter progress: called as the rows arrive (a large table is megabytes).
    public func trackedTable(_ name: String, where filter: String? = nil, select: [String] = [],
                             progress: (@Sendable (TransferProgress) -> Void)? = nil) async throws(StrataError) -> TrackedTables {
        try await table(name, where: filter, select: select, track: true, progress: progress)
    }

    /// One narrowed table with its token, like ``trackedTable(_:where:select:progress:)``, written
    /// to `file` as it arrives instead of held in memory: read it with ``CompactTableReader`` (the
    /// offline replica inserts its rows as it reads them, while the rest arrives: `inPlace`, the
    /// file is written as the body comes, each progress report after its bytes). A failed transfer
    /// leaves no file.
    func downloadTrackedTable(_ name: String, where filter: String?, to file: URL, inPlace: Bool = false,
                              progress: (@Sendable (TransferProgress) -> Void)?) async throws(StrataError) {
        let request = StrataRequest(.get, Self.tablePath(dataService.rootPath, name, filter: filter, select: [], extra: "track=1"))
        try await dataService.download(request, to: file, inPlace: inPlace, progress: progress)
    }

    /// The table, with its token when `track`.
    func table(_ name: String, where filter: String?, select: [String], track: Bool,
               progress: (@Sendable (TransferProgress) -> Void)?) async throws(StrataError) -> TrackedTables {
        let response = try await dataService.send(StrataRequest(.get, Self.tablePath(dataService.rootPath, name, filter: filter, select: select,
                                                                                     extra: track ? "track=1" : nil)), progress: progress)
        let document = try Self.delta(in: response)
        guard document.tables.count == 1 else { throw ResponseReader.invalid(response, "The server answered \(document.tables.count) tables for one.") }
        if track, document.token == nil { throw ResponseReader.invalid(response, "The server gave no token for the tracked table \(name).") }
        let table = document.tables[0]
        return TrackedTables(tables: [DataTable(name: table.name, fields: table.fields, rows: table.rows)], token: track ? document.token : nil)
    }

    /// What changed in one narrowed table since `token` (from ``trackedTable(_:where:select:progress:)``
    /// with the same `where` and `select`), every page followed; rows that no longer match the
    /// filter (or your row filter) come as deleted keys.
    ///
    /// - Throws: ``StrataError/Kind/deltaTokenGone`` (410) when the token can no longer be used.
    public func changes(in name: String, where filter: String? = nil, select: [String] = [], since token: String,
                        wait: Int? = nil) async throws(StrataError) -> TableDelta {
        try await followDelta(Self.tablePath(dataService.rootPath, name, filter: filter, select: select,
                                             extra: "since=" + PercentEncoding.encodeQueryValue(token)), wait: wait)
    }

    /// Reads a delta from `path`, then its `next` pages until the one with the token.
    private func followDelta(_ path: String, wait: Int?) async throws(StrataError) -> TableDelta {
        var request = StrataRequest(.get, path + (wait.map { "&\(ODataDelta.waitOption)=\($0)" } ?? ""))
        if let wait { request.timeout = max(dataService.connection.configuration.timeout, TimeInterval(wait) + 30) }
        var delta: TableDelta?
        var pages = DeltaPages()
        while true {
            let page = try await deltaPage(request, &pages)
            if delta == nil {
                delta = TableDelta(tables: page.tables, token: "")
            } else {
                delta!.append(page.tables)
            }
            guard let next = page.next else {
                delta!.token = page.token ?? ""
                return delta!
            }
            request = next
        }
    }

    /// The first page of one narrowed table's changes since `token`: follow it with
    /// ``deltaPage(_:_:)`` to apply each page as it comes (the offline replica does, one
    /// transaction per page) instead of gathering every page first.
    func deltaRequest(_ name: String, where filter: String?, since token: String) -> StrataRequest {
        StrataRequest(.get, Self.tablePath(dataService.rootPath, name, filter: filter, select: [],
                                          extra: "since=" + PercentEncoding.encodeQueryValue(token)))
    }

    /// Pages of one delta read so far, to stop one that does not end.
    struct DeltaPages {
        var count = 0
    }

    /// One page of a delta: its tables, and either the token (the last page) or the request for the next.
    func deltaPage(_ request: StrataRequest, _ pages: inout DeltaPages) async throws(StrataError)
        -> (tables: [CompactTable], token: String?, next: StrataRequest?) {
        let response = try await dataService.send(request)
        let document = try Self.delta(in: response)
        if let token = document.token { return (document.tables, token, nil) }
        guard let next = document.next, let url = URL(string: next, relativeTo: response.url)?.absoluteURL else {
            throw ResponseReader.invalid(response, "The delta has neither a token nor a next page.")
        }
        pages.count += 1
        guard url.absoluteString != response.url.absoluteString, pages.count < 100_000 else {
            throw ResponseReader.invalid(response, "The delta does not end (\(pages.count) pages).")
        }
        var following = StrataRequest(.get, url.absoluteString)
        following.timeout = request.timeout
        return (document.tables, nil, following)
    }

    /// `$tables/Name?$filter=…&$select=…&extra`.
    private static func tablePath(_ root: String, _ name: String, filter: String?, select: [String], extra: String?) -> String {
        var options: [String] = []
        if let filter { options.append("$filter=" + PercentEncoding.encodeQueryValue(filter)) }
        if !select.isEmpty { options.append("$select=" + PercentEncoding.encodeQueryValue(select.joined(separator: ","))) }
        if let extra { options.append(extra) }
        return root + "$tables/" + PercentEncoding.encodePathSegmentName(name) + (options.isEmpty ? "" : "?" + options.joined(separator: "&"))
    }

    /// The live changes of the tables (see ``DataService/changeStream(sets:filter:since:configuration:)``).
    public func changeStream(_ names: [String], filter: String? = nil, since token: String? = nil,
                             configuration: EventStreamConfiguration = EventStreamConfiguration()) -> ChangeStream {
        dataService.changeStream(sets: names, filter: filter, since: token, configuration: configuration)
    }

    private static func list(_ names: [String]) -> String {
        names.map { PercentEncoding.encodeQueryValue($0) }.joined(separator: ",")
    }

    private static func delta(in response: StrataResponse) throws(StrataError) -> CompactTableDelta {
        do {
            return try CompactTableDelta.decode(Array(response.body))
        } catch {
            throw ResponseReader.invalid(response, "The answer is not a data table delta: \(error.message).")
        }
    }
}
