import StrataCore
import StrataStorage

/// The rows of a collection read, chunk by chunk: keyset chunks from a ``CollectionReader``,
/// completed by `prepare` (expansions), cut to `$top`, `$skip` and the server's page size.
///
/// Execution's side of a streamed collection: it hands out rows, never bytes. Serialization's
/// ``CollectionStream`` writes each chunk as it comes, so memory holds one chunk (and the next one
/// being read) whatever the collection's size.
///
/// A page also ends early when its `$expand`ed entities would pass ``expansionBudget``: the rows
/// that fit are handed out and `__next` continues after them, so that one response never holds
/// more related entities than the budget (and never the gigabytes a deep `$expand` over shared
/// entities can make). A chunk whose expansions alone read more rows than the budget is tried with
/// fewer parents. When not even the page's first entity fits, or the client cannot follow
/// `__next` (OData 1.0), the answer is a 400 that says how to ask for less.
package struct CollectionRows: Sendable {
    let reader: CollectionReader
    let limits: PageLimits
    /// Completes a chunk's rows before they are handed out (loads `$expand`ed entities in one query
    /// per level); throws ``ExpansionLoader/TooManyRows`` when they hold more related rows than it may read.
    let prepare: @Sendable ([EntityRow]) async throws -> [EntityRow]
    /// `$inlinecount=allpages`: the number of rows of the whole collection.
    let inlineCount: Int?
    /// Inline entities a page may hold; nil without `$expand`.
    private let expansionLimit: Int?
    /// Inline entities the page may still hold.
    private var expansionBudget: Int?
    /// Rows handed out on this page.
    private var handedOut = 0

    private var remainingTop: Int?
    private var remainingPage: Int?
    private var position: [ODataValue]?
    private var offset: Int
    /// The first chunk, read by ``start()`` before the response starts.
    private var pending: [EntityRow]?
    /// The next chunk's rows, already being read while this chunk is written: reading (on the
    /// thread pool) and writing JSON (on the request's task) then overlap on two cores.
    private var prefetched: Task<[CollectionReader.Row], any Error>?
    /// True once the last chunk was handed out.
    private(set) var finished = false
    /// Where the next page starts and how many rows `$top` still wants, when the page ended before
    /// the collection did (the `__next` link).
    private(set) var nextPage: (position: [ODataValue], remainingTop: Int?)?
    /// The snapshot the chunks after the first are read in, on a server with standbys
    /// (``HeldSnapshot``): they are read after the response's head went out, and must not be newer
    /// than the position it carries. Opened once the first chunk shows that more follow.
    private var held: HeldSnapshot.Lease?

    init(reader: CollectionReader, limits: PageLimits, inlineCount: Int?, expansionBudget: Int? = nil,
         prepare: @escaping @Sendable ([EntityRow]) async throws -> [EntityRow] = { $0 }) {
        self.reader = reader
        self.limits = limits
        self.prepare = prepare
        self.inlineCount = inlineCount
        self.expansionLimit = expansionBudget
        self.expansionBudget = expansionBudget
        self.remainingTop = limits.top
        self.remainingPage = limits.pageSize
        self.position = limits.continuation
        self.offset = limits.skip
    }

    /// Reads the first chunk, so that a failing query still gets an error status; returns its size.
    mutating func start() async throws -> Int {
        let first = try await readChunk() ?? []
        pending = first
        return first.count
    }

    /// The next chunk's entities, or nil when the collection (or the page) is complete.
    mutating func next() async throws -> [EntityRow]? {
        if let first = pending {
            pending = nil
            return first
        }
        return try await readChunk()
    }

    private mutating func readChunk() async throws -> [EntityRow]? {
        guard !finished else { return nil }
        let want = wanted
        guard want > 0 else {
            finished = true
            return nil
        }
        // One row more than wanted tells whether anything follows.
        let rows: [CollectionReader.Row]
        if let prefetched {
            do {
                rows = try await prefetched.value
            } catch is HeldSnapshot.Expired {
                return try endHeldPage()
            }
        } else if let held, !held.snapshot.isOpen {
            return try endHeldPage()
        } else {
            rows = try await HeldSnapshot.$current.withValue(held?.snapshot) {
                try await reader.fetch(limit: want + 1, offset: offset, after: position)
            }
        }
        prefetched = nil
        var used = Array(rows.prefix(want))
        let moreRows = rows.count > want
        // The next chunk is read while this one's expansions load and its rows are written.
        let nextWant = wanted(top: remainingTop.map { $0 - used.count }, page: remainingPage.map { $0 - used.count })
        if moreRows, nextWant > 0, let last = used.last {
            if held == nil, let snapshot = try await reader.database.holdSnapshot() { held = HeldSnapshot.Lease(snapshot) }
            let (reader, snapshot) = (reader, held?.snapshot)
            if snapshot?.isOpen ?? true {
                prefetched = Task {
                    try await HeldSnapshot.$current.withValue(snapshot) {
                        try await reader.fetch(limit: nextWant + 1, offset: 0, after: last.position)
                    }
                }
            }
        }
        let entities: [EntityRow]
        do {
            entities = try await HeldSnapshot.$current.withValue(held?.snapshot) {
                try await prepareWithinBudget(used.map { EntityRow(values: $0.values) })
            }
        } catch is HeldSnapshot.Expired {
            // Read in time, but its expansions would be read too late: the page ends before it.
            return try endHeldPage()
        }
        // Cut short by the expansion budget: the page ends after the entities that fit, and the
        // chunk read ahead is not needed.
        let cut = entities.count < used.count
        if cut {
            prefetched?.cancel()
            prefetched = nil
            guard limits.pageSize != nil else { throw Self.tooMuchExpansion(expansionLimit ?? 0, pageable: false) }
            guard !entities.isEmpty || handedOut > 0 else { throw Self.tooMuchExpansion(expansionLimit ?? 0, pageable: true) }
            used = Array(used.prefix(entities.count))
        }
        remainingTop = remainingTop.map { $0 - used.count }
        remainingPage = remainingPage.map { $0 - used.count }
        handedOut += used.count
        offset = 0
        if let last = used.last { position = last.position }
        if cut, remainingTop != 0, let position {
            nextPage = (position, remainingTop)
            finished = true
        } else if !moreRows || remainingTop == 0 {
            finished = true
        } else if remainingPage == 0, let position {
            nextPage = (position, remainingTop)
            finished = true
        }
        // The connection goes back to the pool now, not when the response is released.
        if finished { held = nil }
        return entities
    }

    /// The held snapshot was held as long as it may be: the page ends after the rows handed out,
    /// where the client can follow `__next`; a client that cannot gets a body cut short
    /// (docs/DEPLOYMENT.md, *Standbys*).
    private mutating func endHeldPage() throws -> [EntityRow]? {
        prefetched = nil
        held = nil
        guard limits.pageSize != nil, handedOut > 0, let position else { throw HeldSnapshot.Expired() }
        nextPage = (position, remainingTop)
        finished = true
        return nil
    }

    /// The chunk's rows prepared, or as many of its first rows as fit the expansion budget: a
    /// prefix, each row's inline entities counted against what the page may still hold. A chunk
    /// whose expansions read more rows than the budget is prepared again with half its rows, down
    /// to one.
    private mutating func prepareWithinBudget(_ rows: [EntityRow]) async throws -> [EntityRow] {
        guard let budget = expansionBudget else { return try await prepare(rows) }
        var parents = rows[...]
        var prepared: [EntityRow] = []
        while true {
            do {
                prepared = try await prepare(Array(parents))
                break
            } catch is ExpansionLoader.TooManyRows {
                guard parents.count > 1 else { return [] }
                parents = parents.prefix(parents.count / 2)
            }
        }
        var fitting = 0, used = 0
        for row in prepared {
            let total = ExpansionLoader.add(used, row.inlineCount)
            guard total <= budget else { break }
            used = total
            fitting += 1
        }
        expansionBudget = budget - used
        return Array(prepared.prefix(fitting))
    }

    /// The 400 for a page whose first entity alone expands past the budget, or for a client that
    /// cannot be sent a shorter page.
    static func tooMuchExpansion(_ budget: Int, pageable: Bool) -> ODataError {
        let advice = pageable
            ? "Its first entity alone expands to more; expand fewer navigation properties or levels, or read the related entities as collections of their own, which are paged."
            : "Ask for fewer entities with $top, or send MaxDataServiceVersion: 2.0 so that the server can end a page early with __next."
        return ODataError(status: 400, code: "ExpansionTooLarge",
                          message: "$expand would place more than \(budget) related entities in one response (the server's limit). " + advice)
    }

    /// Rows the next chunk should hold: a chunk, or fewer when `$top` or the page ends sooner.
    private var wanted: Int {
        wanted(top: remainingTop, page: remainingPage)
    }

    private func wanted(top: Int?, page: Int?) -> Int {
        [limits.chunkSize, top ?? .max, page ?? .max].min()!
    }
}
