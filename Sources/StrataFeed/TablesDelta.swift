import Foundation
import HTTPTypes
import Hummingbird
import StrataCore
import StrataDataTables
import StrataIdentity
import StrataOData
import StrataStorage

/// `$tables` with the change feed: `track=1` adds a token to a whole-table answer; `since=TOKEN`
/// answers what changed since, in the compact form with each table's `deleted` keys and a new
/// `token` (or `next`, when the changes fill more than a page); `wait=N` (at most 60 seconds, ``DeltaPolling``) holds
/// an answer with no changes until some come. One token covers all the tables of the request: the
/// log and its cursor are per service.
package struct TablesDelta: Sendable {
    let call: ODataCall
    let authorizer: Authorizer
    let settings: FeedSettings
    let hub: FeedHub

    package init(call: ODataCall, authorizer: Authorizer, settings: FeedSettings, hub: FeedHub) {
        self.call = call
        self.authorizer = authorizer
        self.settings = settings
        self.hub = hub
    }

    static let options: Set<String> = ["names", "since", "wait", "track"]

    /// Whether a `$tables` request asks for the feed.
    package static func applies(to url: ODataRequestURL) -> Bool {
        url.value(of: "since") != nil || url.value(of: "track") != nil
    }

    package func respond() async throws -> Response {
        guard call.method == .get || call.method == .head else {
            throw ODataError.methodNotAllowed("$tables is read with GET; send changes to $changes.")
        }
        try ContentNegotiation.requireJSON(accept: call.headers[.accept], format: call.url.value(of: "$format"))
        let segments = call.url.path.segments
        guard segments[0].key == nil, segments.count <= 2, segments.count == 1 || segments[1].key == nil else {
            throw ODataError.badRequest("Address one table as $tables/Table, or several as $tables?names=A,B.")
        }
        let single = segments.count == 2
        let names = single ? [segments[1].name] : try FeedQuery.names(call.url.value(of: "names"), option: "names")
        let query = try await FeedQuery(call: call, authorizer: authorizer, names: names, allowedOptions: Self.options)
        let reload = "the tables without since (add track=1 for a new token)"
        if let since = call.url.value(of: "since") {
            guard call.url.value(of: "track") == nil else { throw ODataError.badRequest("since and track do not go together: since answers with a new token anyway.") }
            let token = try await settings.open(since, reload: reload)
            guard token.query == query.queryFingerprint else {
                throw FeedSettings.gone("The token was issued for other tables or another $filter or $select.", reload: reload)
            }
            guard token.rights == query.rightsFingerprint else {
                throw FeedSettings.gone("What you may read of these tables changed since the token was issued.", reload: reload)
            }
            return try await delta(query, token: token, single: single, reload: reload)
        }
        guard call.url.value(of: "track") == "1" || call.url.value(of: "track") == "true" else {
            throw ODataError.badRequest("track takes 1 (or true): it asks for a token of the state the tables are read in.")
        }
        if call.url.value(of: "wait") != nil { throw ODataError.badRequest("wait applies to since=TOKEN: a first read answers at once.") }
        // The cursor first: whatever changes while the tables are read is in the next delta.
        let (info, cursor) = try await call.service.database.snapshot { [service = call.service] connection in
            let log = ChangeLog(storage: service.storage)
            return (try await log.info(connection), try await log.current(connection))
        }
        guard let info else { throw ODataError.badRequest("\(call.service.name) has no change tracking; an administrator turns it on with `strata service track \(call.service.name)`.") }
        let token = FeedToken(epoch: info.epoch, issuedAt: Int64(settings.now().timeIntervalSince1970), cursor: cursor,
                              query: query.queryFingerprint, rights: query.rightsFingerprint)
        return try await TablesOperation(call: call, authorizer: authorizer, token: try token.encoded(with: settings.keys),
                                         feedOptions: Self.options).respond()
    }

    private func delta(_ query: FeedQuery, token: FeedToken, single: Bool, reload: String) async throws -> Response {
        let wait = try DeltaPolling.wait(call.url)
        var targets: [DeltaReader.Target] = []
        for member in query.members {
            let path = ResolvedPath(steps: [ResolvedPath.Step(set: member.set, type: member.type, via: nil, key: nil)], terminal: .entities)
            let access = try await authorizer.readAccess(path, member.bound)
            targets.append(DeltaReader.Target(set: member.set, type: member.type,
                                              plan: try ReadPlanner(service: call.service, access: access).plan(path, member.bound)))
        }
        let reader = DeltaReader(service: call.service, targets: targets)
        // Compact rows are small and each page reads the window again: deltas page ten times coarser.
        let pageSize = (call.service.settings.pageSize ?? call.settings.pageSize) * 10
        let page = try await DeltaPolling.page(reader, after: token, pageSize: pageSize, wait: wait, hub: hub,
                                               subject: "these tables", reload: reload)
        var next = token
        next.issuedAt = Int64(settings.now().timeIntervalSince1970)
        let more = page.more
        if more {
            next.windowEnd = page.end
            next.sent = UInt32(clamping: page.sent)
        } else {
            next.cursor = page.end
            next.windowEnd = nil
            next.sent = 0
        }
        let nextToken = try next.encoded(with: settings.keys)
        let nextLink = more ? link(since: nextToken) : nil
        var writer = JSONWriter(capacity: 4096)
        if !single { CompactTableWriter.beginDocument(into: &writer) }
        for (member, table) in zip(query.members, page.tables) {
            let properties = FeedQuery.properties(member)
            let plan = targets.first { $0.set.name == member.set.name }!.plan
            let positions = properties.map { property in plan.columns.firstIndex { $0.name == property.name }! }
            let fields = properties.map { TableFields.field($0, of: member.type, in: member.set, allowClientKeys: call.service.settings.allowClientKeys) }
            CompactTableWriter.begin(name: member.set.name, fields: fields, into: &writer)
            for entity in table.entities { CompactTableWriter.row(positions.map { entity.values[$0] }, into: &writer) }
            CompactTableWriter.endRows(into: &writer)
            CompactTableWriter.deleted(table.deleted, into: &writer)
            if single { CompactTableWriter.resume(token: more ? nil : nextToken, next: more ? nextLink : nil, into: &writer) }
            CompactTableWriter.endTable(into: &writer)
        }
        if !single { CompactTableWriter.endDocument(token: more ? nil : nextToken, next: more ? nextLink : nil, into: &writer) }
        return ODataResponse.body(writer.bytes, headers: [.contentType: ODataResponse.jsonContentType], headRequest: call.isHead)
    }

    /// The request's link with `since` in place: the rest of a delta that fills more than a page.
    private func link(since token: String) -> String {
        var items: [String] = []
        for item in call.url.queryItems where item.name != "since" && item.name != "wait" {
            items.append(PercentEncoding.encodeQueryValue(item.name) + "=" + PercentEncoding.encodeQueryValue(item.value))
        }
        items.append("since=" + PercentEncoding.encodeQueryValue(token))
        return call.serviceRoot + call.url.path.urlText + "?" + items.joined(separator: "&")
    }
}
