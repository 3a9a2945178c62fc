import Foundation
import Hummingbird
import StrataCore
import StrataIdentity
import StrataOData
import StrataStorage

/// A read of an entity set with the change feed: a first read that issues a delta link
/// (`Prefer: odata.track-changes`), its later pages (`!deltastart`), and the changes since a
/// delta link (`!deltatoken`), paged like any collection.
///
/// A read the feed cannot answer correctly gets no delta link — the preference is not applied,
/// which OData permits: not a tracked table, OData 1.0 answers (a bare array has no place for
/// `__delta`), a path below an entity, `$expand`, `$top`/`$skip`, or a `$filter` or row filter that
/// reaches another table (a change there moves rows in or out without a change in this table's log).
package struct DeltaOperation: Sendable {
    let call: ODataCall
    let feed: FeedSettings
    let request: DeltaRequest
    let read: ReadRequest
    let access: ReadAccess
    /// The service's stream hub, for `wait=` (long-poll); nil answers at once.
    var hub: FeedHub?

    package init(call: ODataCall, feed: FeedSettings, request: DeltaRequest, read: ReadRequest, access: ReadAccess, hub: FeedHub? = nil) {
        self.call = call
        self.feed = feed
        self.request = request
        self.read = read
        self.access = access
        self.hub = hub
    }

    private var service: ODataService { call.service }
    private var path: ResolvedPath { read.path }
    private var query: BoundQuery { read.query }
    private var set: EntitySet { path.target.set }
    private var reloadLink: String { DeltaLink.reload(serviceRoot: call.serviceRoot, url: call.url) }

    /// The answer, or nil when the read is not tracked and is answered as an ordinary read.
    package func respond() async throws -> Response? {
        guard try isTrackable() else {
            if case .track = request.kind { return nil }
            throw FeedSettings.gone("\(set.name) is not tracked for this query any more.", reload: reloadLink)
        }
        let fingerprints = try self.fingerprints()
        switch request.kind {
        case .track:
            let (info, cursor) = try await service.database.snapshot { connection in
                let log = ChangeLog(storage: service.storage)
                return (try await log.info(connection), try await log.current(connection))
            }
            guard let info else { return nil }
            let token = FeedToken(epoch: info.epoch, issuedAt: Int64(feed.now().timeIntervalSince1970), cursor: cursor,
                                  query: fingerprints.query, rights: fingerprints.rights)
            return try await trackedRead(start: try token.encoded(with: feed.keys))
        case .start(let text):
            _ = try await open(text, fingerprints)
            return try await trackedRead(start: text)
        case .delta(let text):
            return try await delta(try await open(text, fingerprints))
        }
    }

    /// An ordinary read whose last page carries the delta link.
    private func trackedRead(start: String) async throws -> Response {
        let result = try await ReadOperation(call: call, request: read, access: access).run()
        let deltaLink = DeltaLink.url(serviceRoot: call.serviceRoot, url: call.url, option: DeltaRequest.deltaTokenOption, token: start)
        return ReadResponse(call: call).response(result, tracking: ReadResponse.Tracking(start: start, deltaLink: deltaLink))
    }

    private func delta(_ token: FeedToken) async throws -> Response {
        let plan = try ReadPlanner(service: service, access: access).plan(path, query)
        let reader = DeltaReader(service: service, targets: [DeltaReader.Target(set: set, type: path.target.type, plan: plan)])
        let pageSize = service.settings.pageSize ?? call.settings.pageSize
        let page = try await DeltaPolling.page(reader, after: token, pageSize: pageSize, wait: try DeltaPolling.wait(call.url), hub: hub,
                                               subject: set.name, reload: reloadLink)
        var next = token
        next.issuedAt = Int64(feed.now().timeIntervalSince1970)
        let continuation: DeltaResponse.Continuation
        if page.more {
            next.windowEnd = page.end
            next.sent = UInt32(clamping: page.sent)
            continuation = .next(DeltaLink.url(serviceRoot: call.serviceRoot, url: call.url, option: DeltaRequest.deltaTokenOption,
                                               token: try next.encoded(with: feed.keys)))
        } else {
            next.cursor = page.end
            next.windowEnd = nil
            next.sent = 0
            continuation = .delta(DeltaLink.url(serviceRoot: call.serviceRoot, url: call.url, option: DeltaRequest.deltaTokenOption,
                                                token: try next.encoded(with: feed.keys)))
        }
        return DeltaResponse(call: call).response(page, shape: plan.shape, continuation: continuation)
    }

    private func open(_ text: String, _ fingerprints: (query: [UInt8], rights: [UInt8])) async throws -> FeedToken {
        let token = try await feed.open(text, reload: reloadLink)
        guard token.query == fingerprints.query else {
            throw FeedSettings.gone("The change token was issued for another query; follow the link as the server gave it.", reload: reloadLink)
        }
        guard token.rights == fingerprints.rights else {
            throw FeedSettings.gone("What you may read of \(set.name) changed since the token was issued.", reload: reloadLink)
        }
        return token
    }

    private func fingerprints() throws -> (query: [UInt8], rights: [UInt8]) {
        let options = try QueryOptions(parsing: call.url.rawQuery, limits: call.settings.queryLimits)
        return (FeedFingerprint.query(service: service.name, sets: [set.name], options: options),
                FeedFingerprint.rights(service: service, sets: [(set, try access.rowFilter(set.name))]))
    }

    private func isTrackable() throws -> Bool {
        guard call.version >= .v2, path.steps.count == 1, case .entities = path.terminal, path.target.isCollection,
              service.trackedTables.contains(service.storage.names.table(set.name)),
              query.projection.expansions.isEmpty, query.top == nil, query.skip == nil, query.navigationJoins.isEmpty
        else { return false }
        let rowFilter = try access.rowFilter(set.name)
        return rowFilter?.propertyPaths.allSatisfy(\.navigation.isEmpty) ?? true
    }
}
