import Foundation
import Logging
import StrataCore
import StrataSQL
import StrataIdentity
import StrataOData
import StrataStorage

/// The change stream of one service: reads each new window of its change log once, reads the
/// changed rows once per table for all subscribers — one statement with a match column per
/// distinct condition — and hands each group of subscribers one event per committed transaction.
///
/// Woken by PostgreSQL notifications (``FeedHubs/wake(service:)``) and, while anyone listens,
/// by polling: on SQLite the log's last position every ``sqlitePoll`` (it sees other programs'
/// writes too), on PostgreSQL a safety read every ``postgresPoll`` (a lost notification costs
/// latency, never a change). The log is the truth; a wake-up only says "read".
///
/// On a server with standbys the hub reads where a request would (docs/DEPLOYMENT.md, *Standbys*),
/// with a position of its own (``reads``): a window is read on a standby only when it has replayed
/// past every earlier read of the hub, so that its snapshot shows at least what the hub delivered
/// (a standby further behind would hand back transactions already delivered), and otherwise on the
/// primary. A wake-up (a commit) first raises that position to the primary's, after waiting a little
/// for a standby to replay it (``standbyWait``), so that the commit that woke the hub is in the
/// window it reads next.
package actor FeedHub {
    let service: ODataService
    let settings: FeedSettings
    private let log: ChangeLog
    private let logger: Logger
    private let pollInterval: Duration

    static let sqlitePoll = Duration.milliseconds(20)
    static let postgresPoll = Duration.seconds(1)
    static let heartbeatInterval = Duration.seconds(15)
    /// How long a woken hub waits for a standby to replay the commit that woke it before it reads
    /// the primary: two of the standbys' polls, which is when one that keeps up is seen to have.
    static let standbyWait = Duration.milliseconds(250)
    /// Changes read per window: a long backlog is delivered in steps.
    static let windowLimit = 5_000
    /// Events a subscriber may have waiting; past it the stream ends and the client resumes with
    /// `Last-Event-ID` (the buffer keeps the oldest events, so nothing is skipped).
    static let bufferedEvents = 2_048

    typealias Events = AsyncStream<[UInt8]>

    /// The hub was closed (its service reloaded, or the server stopping) while a subscriber joined:
    /// the client connects again and finds the new hub.
    struct Replaced: Error {}

    private struct Group {
        var shape: FeedShape
        var subscribers: [UUID: Events.Continuation] = [:]
    }

    /// The full model's sets by database table: the hub reads whole rows and each shape picks its fields.
    private let setsByTable: [String: (set: EntitySet, type: EntityType)]
    private var cursor: ChangeCursor?
    private var epoch: [UInt8]?
    private var groups: [[UInt8]: Group] = [:]
    private var waiters: [UUID: CheckedContinuation<Bool, Never>] = [:]
    private var sleeper: CheckedContinuation<Void, Never>?
    private var pendingWake = false
    private var loop: Task<Void, Never>?
    private var lastHeartbeat = ContinuousClock.now
    private var closed = false
    /// The position the hub's reads have seen (standbys only): its next read goes where that much
    /// has been replayed. Not any request's: a hub serves everyone and outlives the request that made it.
    private let reads = ReadPositionScope(caller: nil, mayReadStandbys: true)

    init(service: ODataService, settings: FeedSettings, logger: Logger) {
        self.service = service
        self.settings = settings
        self.log = ChangeLog(storage: service.storage)
        self.logger = logger
        self.pollInterval = service.dialect == .sqlite ? Self.sqlitePoll : Self.postgresPoll
        var sets: [String: (EntitySet, EntityType)] = [:]
        for set in service.model.entitySets {
            sets[service.storage.names.table(set.name)] = (set, service.model.entityType(of: set))
        }
        setsByTable = sets
    }

    // MARK: Subscribing

    /// A new subscriber's events: from `token` (catching up on what it missed, then live), or from
    /// now (a `ready` event names where). Throws ``DeltaReader/Gone`` when the token cannot be followed.
    /// The events end when `hangUp` fires: a client that went away frees its place at once, not at
    /// the next heartbeat its connection fails to take.
    func subscribe(_ shape: FeedShape, from token: FeedToken?, hangUp: InterruptSignal? = nil) async throws -> (id: UUID, events: Events) {
        guard !closed else { throw DeltaReader.Gone.trackingChanged }
        try await start()
        let (events, continuation) = Events.makeStream(bufferingPolicy: .bufferingOldest(Self.bufferedEvents))
        let id = UUID()
        let key = shape.groupKey
        let watcher = hangUp.map { signal in
            Task {
                await signal.wait()
                if !Task.isCancelled { continuation.finish() }
            }
        }
        continuation.onTermination = { [weak self] _ in
            watcher?.cancel()
            Task { await self?.unsubscribe(id, group: key) }
        }
        continuation.yield(FeedEvent.retry)
        if let token {
            guard token.epoch == epoch else { throw DeltaReader.Gone.trackingChanged }
            // The token may come from another server, whose hub may have read further than this one.
            await catchUp()
            let info = try await snapshot { [log] connection in try await log.info(connection) }
            guard let info, info.epoch == token.epoch else { throw DeltaReader.Gone.trackingChanged }
            guard !log.isPruned(token.cursor, info: info) else { throw DeltaReader.Gone.pruned }
            // Bring the hub to now first: a token from another server may be ahead of this hub.
            try await advance()
            guard let hubCursor = cursor else { throw DeltaReader.Gone.trackingChanged }
            var from = token.cursor
            var single = Group(shape: shape)
            single.subscribers[id] = continuation
            while true {
                guard let step = try await process(after: from, upTo: hubCursor, groups: [shape.groupKey: single]) else {
                    throw DeltaReader.Gone.trackingChanged
                }
                from = step.end
                if step.complete { break }
            }
        } else if let cursor, let epoch {
            let start = FeedToken(epoch: epoch, issuedAt: now, cursor: cursor, query: shape.query, rights: shape.rights)
            continuation.yield(FeedEvent.ready(token: try start.encoded(with: settings.keys)))
        }
        // The hub may have been closed while this subscriber caught up (its service was reloaded):
        // joining now would wait for ever on a hub nobody wakes.
        guard !closed else {
            continuation.finish()
            throw Replaced()
        }
        groups[key, default: Group(shape: shape)].subscribers[id] = continuation
        ensureLoop()
        return (id, events)
    }

    /// How many streams are subscribed now.
    var subscriberCount: Int { groups.values.reduce(0) { $0 + $1.subscribers.count } }

    private func unsubscribe(_ id: UUID, group: [UInt8]) {
        groups[group]?.subscribers[id] = nil
        if groups[group]?.subscribers.isEmpty == true { groups[group] = nil }
    }

    /// Waits until a window with changes was read, or `timeout` passed: a long-poll's wait. Answers
    /// whether there were changes.
    func waitForChanges(timeout: Duration) async throws -> Bool {
        try await start()
        let id = UUID()
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.resumeWaiter(id, changed: false)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            waiters[id] = continuation
            ensureLoop()
        }
    }

    private func resumeWaiter(_ id: UUID, changed: Bool) {
        waiters.removeValue(forKey: id)?.resume(returning: changed)
    }

    /// Something may have been committed: read the log soon.
    func wake() {
        pendingWake = true
        wakeLoop()
    }

    /// Ends every stream (the service was reloaded, or the server stops); clients reconnect with
    /// `Last-Event-ID`, to this server's next hub or another server.
    func close() {
        closed = true
        for group in groups.values {
            for continuation in group.subscribers.values { continuation.finish() }
        }
        groups = [:]
        for waiter in waiters.values { waiter.resume(returning: false) }
        waiters = [:]
        loop?.cancel()
        wakeLoop()
    }

    // MARK: The loop

    private var now: Int64 { Int64(settings.now().timeIntervalSince1970) }

    private func start() async throws {
        guard cursor == nil else { return }
        // "From now" is the primary's now, not a lagging standby's.
        await catchUp()
        let (info, current) = try await snapshot { [log] connection in
            (try await log.info(connection), try await log.current(connection))
        }
        guard let info, cursor == nil else {
            if cursor == nil { throw DeltaReader.Gone.trackingChanged }
            return
        }
        cursor = current
        epoch = info.epoch
    }

    /// The loop runs while anyone listens (subscribers or long-polls); the next one starts it again.
    private var isListenedTo: Bool { !groups.isEmpty || !waiters.isEmpty }

    private func ensureLoop() {
        guard loop == nil, !closed else { return }
        loop = Task { await self.run() }
    }

    private func run() async {
        defer { loop = nil }
        while !Task.isCancelled, !closed, isListenedTo {
            await sleep(pollInterval)
            guard !closed else { return }
            let woken = pendingWake
            pendingWake = false
            do {
                if woken { await catchUp() }
                var due = woken || service.dialect == .postgres
                if !due { due = try await hasNewPositions() }
                if due { try await advance() }
            } catch {
                logger.warning("Could not read the change log", metadata: ["service": .string(service.name), "error": "\(error)"])
            }
            if ContinuousClock.now - lastHeartbeat >= Self.heartbeatInterval {
                lastHeartbeat = .now
                for group in groups.values {
                    for continuation in group.subscribers.values { continuation.yield(FeedEvent.heartbeat) }
                }
            }
        }
    }

    private func sleep(_ interval: Duration) async {
        if pendingWake { return }
        await withCheckedContinuation { continuation in
            sleeper = continuation
            Task { [weak self] in
                try? await Task.sleep(for: interval)
                await self?.wakeLoop()
            }
        }
    }

    private func wakeLoop() {
        sleeper?.resume()
        sleeper = nil
    }

    /// SQLite: whether the log's last position moved (one index probe, no rows read).
    private func hasNewPositions() async throws -> Bool {
        guard case .position(let seen)? = cursor else { return true }
        let current = try await ReadPositionScope.$current.withValue(reads) {
            try await service.database.read { [log] connection in try await log.current(connection) }
        }
        guard case .position(let last) = current else { return true }
        return last != seen
    }

    /// Reads the windows after the hub's cursor up to now and delivers them.
    private func advance() async throws {
        guard let from = cursor else { return }
        guard !groups.isEmpty || !waiters.isEmpty else {
            // Nobody to deliver to: move on without reading changes.
            let current = try await snapshot { [log] connection in try await log.current(connection) }
            cursor = cursor.map { $0.merged(with: current) } ?? current
            return
        }
        var position = from
        var changed = false
        while true {
            guard let step = try await process(after: position, upTo: nil, groups: groups) else {
                endAll(FeedSettings.gone("Change tracking of \(service.name) was switched off or restarted.", reload: "the tables"))
                return
            }
            position = step.end
            changed = changed || step.changes > 0
            if step.complete { break }
        }
        cursor = position
        if changed {
            for waiter in waiters.values { waiter.resume(returning: true) }
            waiters = [:]
        }
    }

    private func endAll(_ error: ODataError) {
        for group in groups.values {
            for continuation in group.subscribers.values {
                continuation.yield(FeedEvent.gone(error))
                continuation.finish()
            }
        }
        groups = [:]
        cursor = nil
        epoch = nil
        closed = true
    }

    // MARK: Where the hub reads

    /// A read-only snapshot where the hub's position says (see the type's comment).
    private func snapshot<T: Sendable>(_ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> T {
        try await ReadPositionScope.$current.withValue(reads) { try await service.database.snapshot(body) }
    }

    /// Raises the hub's position to the primary's now, once a standby has replayed that far or
    /// ``standbyWait`` has passed; nothing to do without standbys. When the primary does not say,
    /// the position stays: a commit a standby has not replayed yet is then delivered by a later
    /// read (the next poll at the latest), never skipped.
    private func catchUp() async {
        guard let now = try? await service.database.currentPosition() else { return }
        _ = await service.database.awaitStandby(after: max(now, reads.position ?? now), within: Self.standbyWait)
        reads.record(now)
    }

    // MARK: One window

    private struct Step {
        var end: ChangeCursor
        var complete: Bool
        var changes: Int
    }

    /// Reads one window after `from` and hands each group its events. Nil when the log is gone or
    /// restarted.
    private func process(after from: ChangeCursor, upTo: ChangeCursor?, groups: [[UInt8]: Group]) async throws -> Step? {
        let epoch = self.epoch
        let wanted = Set(groups.values.flatMap { $0.shape.members.map(\.table) })
        let conditions = Self.conditions(groups)
        let (setsByTable, storage, log) = (self.setsByTable, service.storage, self.log)
        let read = try await snapshot { connection -> (ChangeWindow, [String: [[ODataValue]: FeedRows.Row]])? in
            guard let info = try await log.info(connection), info.epoch == epoch else { return nil }
            let window = try await log.window(after: from, upTo: upTo, limit: Self.windowLimit, connection)
            var rows: [String: [[ODataValue]: FeedRows.Row]] = [:]
            for table in wanted {
                guard let (set, type) = setsByTable[table] else { continue }
                let keys = FeedRows.keys(of: window.changes, table: table, type: type, storage: storage)
                guard !keys.isEmpty else { continue }
                rows[table] = try await FeedRows(storage: storage, set: set, type: type, conditions: conditions[table] ?? [])
                    .read(keys, connection)
            }
            return (window, rows)
        }
        guard let (read, rows) = read else { return nil }
        var window = read
        // What was delivered before stays delivered, whichever host this window was read on.
        window.end = from.merged(with: window.end)
        try deliver(window, rows: rows, groups: groups, conditions: conditions)
        return Step(end: window.end, complete: window.complete, changes: window.changes.count)
    }

    /// Per table, the distinct conditions of the groups' members, in a fixed order.
    private static func conditions(_ groups: [[UInt8]: Group]) -> [String: [(key: String, term: SQLTerm)]] {
        var result: [String: [(key: String, term: SQLTerm)]] = [:]
        for group in groups.values {
            for member in group.shape.members {
                guard let key = member.conditionKey, let term = member.condition else { continue }
                if !(result[member.table] ?? []).contains(where: { $0.key == key }) { result[member.table, default: []].append((key, term)) }
            }
        }
        return result
    }

    /// One event per transaction and group, in commit order. A key changed again by a later
    /// transaction of the window goes only in that later one's event (its values were read once,
    /// at the window's end). A key that does not pass a member's condition is a deletion for it —
    /// unless the key was only inserted in the window: then the subscriber never had the row.
    private func deliver(_ window: ChangeWindow, rows: [String: [[ODataValue]: FeedRows.Row]], groups: [[UInt8]: Group],
                         conditions: [String: [(key: String, term: SQLTerm)]]) throws {
        guard let epoch, !window.changes.isEmpty, !groups.isEmpty else { return }
        let transactions = FeedTransactions(window.changes)
        var lastTransaction: [FeedRows.TableKey: Int] = [:]
        var existedBefore = Set<FeedRows.TableKey>()
        var keysOf: [[FeedRows.TableKey]] = []
        for (index, transaction) in transactions.list.enumerated() {
            var keys: [FeedRows.TableKey] = []
            for change in transaction.changes {
                guard let (_, type) = setsByTable[change.table] else { continue }
                let key = FeedRows.TableKey(table: change.table, key: FeedRows.key(of: change, type: type, storage: service.storage))
                lastTransaction[key] = index
                if change.operation != .insert { existedBefore.insert(key) }
                keys.append(key)
            }
            keysOf.append(keys)
        }
        let conditionIndex = conditions.mapValues { list in Dictionary(uniqueKeysWithValues: list.enumerated().map { ($1.key, $0) }) }
        for (index, _) in transactions.list.enumerated() {
            let cursor = transactions.cursor(after: index, end: window.end)
            for group in groups.values where !group.subscribers.isEmpty {
                var tables: [FeedEvent.Table] = []
                for member in group.shape.members {
                    var table = FeedEvent.Table(member: member)
                    var added = Set<[ODataValue]>()
                    for key in keysOf[index] where key.table == member.table && lastTransaction[key] == index && added.insert(key.key).inserted {
                        if let row = rows[member.table]?[key.key],
                           member.conditionKey.map({ row.matches[conditionIndex[member.table]?[$0] ?? 0] }) ?? true {
                            table.rows.append(row.pick(member.properties, of: setsByTable[member.table]!.type))
                        } else if existedBefore.contains(key) {
                            table.deleted.append(key.key)
                        }
                    }
                    if !table.rows.isEmpty || !table.deleted.isEmpty { tables.append(table) }
                }
                guard !tables.isEmpty else { continue }
                let token = FeedToken(epoch: epoch, issuedAt: now, cursor: cursor, query: group.shape.query, rights: group.shape.rights)
                let bytes = FeedEvent.changes(token: try token.encoded(with: settings.keys), tables: tables)
                for continuation in group.subscribers.values {
                    if case .dropped = continuation.yield(bytes) { continuation.finish() }
                }
            }
        }
    }
}
