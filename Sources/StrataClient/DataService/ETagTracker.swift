import Foundation

/// Remembers the last ETag seen for each entity URL, so that updates and deletes send `If-Match`
/// without the caller carrying ETags around.
///
/// Every entity a ``DataService`` reads or writes is recorded, expanded ones included; the oldest
/// entries are forgotten beyond ``capacity``, which only means such an update is sent without
/// `If-Match` unless you give one.
public actor ETagTracker {
    /// How many entities are remembered at most.
    public let capacity: Int
    private var tags: [String: String] = [:]
    private var order: [String] = []
    private var head = 0

    /// A tracker that remembers up to `capacity` entities.
    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// The ETag last seen for the entity at `url`.
    public func etag(for url: URL) -> String? {
        tags[Self.key(url)]
    }

    /// Records `etag` for the entity at `url`; nil forgets it.
    public func record(_ etag: String?, for url: URL) {
        let key = Self.key(url)
        guard let etag else {
            tags[key] = nil
            return
        }
        if tags.updateValue(etag, forKey: key) == nil {
            order.append(key)
            evictIfNeeded()
        }
    }

    /// Records the ETags of an entity and of every entity expanded inside it.
    public func record(_ entity: Entity) {
        if let uri = entity.uri, let etag = entity.etag { record(etag, for: uri) }
        for name in entity.navigationNames {
            for related in entity.related(name) { record(related) }
        }
    }

    /// Records the ETags of several entities.
    public func record(_ entities: [Entity]) {
        for entity in entities { record(entity) }
    }

    private func evictIfNeeded() {
        while tags.count > capacity, head < order.count {
            tags[order[head]] = nil
            head += 1
        }
        // Drop the evicted prefix (and keys forgotten since) once it is half the queue.
        if head > order.count / 2 {
            order = order[head...].filter { tags[$0] != nil }
            head = 0
        }
    }

    /// URLs compare by their text; the server writes entity URLs the same way the client builds them.
    private static func key(_ url: URL) -> String {
        url.absoluteString
    }
}

/// Which ETag an update or delete sends as `If-Match`.
public enum IfMatch: Sendable, Hashable {
    /// The ETag last seen for the entity (from a read, a create or an earlier update), or none when
    /// the entity has not been seen.
    case tracked
    /// This ETag, for example one kept in your model's `__metadata`.
    case etag(String)
    /// `If-Match: *`: the entity must exist, whatever its version.
    case any
    /// No `If-Match`: the write applies whatever the server has now.
    case none
}
