import Crypto
import StrataCore
import StrataIdentity

/// The fingerprints a change-feed token carries (``FeedToken``), 16 bytes of SHA-256 each.
///
/// The query's: the service, the addressed sets and the options that decide which rows and columns
/// are read, printed back from their parsed form so that spacing and option order do not matter.
/// A token followed with another query is refused.
///
/// The rights': per set, the row filter after its claims were substituted and the columns served
/// to the caller. Not the caller's name: every delta is read again under the current caller's
/// rights, so a token carries no authority, and callers with equal rights share the stream's
/// groups (``FeedHub``). Any grant, role, claim or model change that touches what the
/// caller may read alters it, and the token is refused with `410 Gone`: a correct delta after a
/// widening would need every row that entered the caller's rows without changing — a full read,
/// which is what the refusal asks the client to do.
package enum FeedFingerprint {
    package static func query(service: String, sets: [String], options: QueryOptions) -> [UInt8] {
        var canonical = options
        canonical.customOptions = canonical.customOptions.filter { !FeedFingerprint.feedOptions.contains($0.name) }
        canonical.skipToken = nil
        canonical.skip = nil
        canonical.format = nil
        canonical.inlineCount = nil
        return digest(["query", service] + sets + [canonical.queryString])
    }

    /// Options of the feed itself, which change from page to page and delta to delta.
    static let feedOptions: Set<String> = ["!deltatoken", "!deltastart", "since", "wait", "track", "names", "sets"]

    package static func rights(service: ODataService, sets: [(set: EntitySet, filter: BoundExpression?)]) -> [UInt8] {
        var parts = ["rights", service.name]
        for (set, filter) in sets {
            let type = service.model.entityType(of: set)
            parts.append(set.name)
            parts.append(type.properties.map(\.name).joined(separator: ","))
            parts.append(filter.map { String(reflecting: $0) } ?? "all rows")
        }
        return digest(parts)
    }

    private static func digest(_ parts: [String]) -> [UInt8] {
        var hash = SHA256()
        for part in parts {
            hash.update(data: Array(part.utf8))
            hash.update(data: [0])
        }
        return Array(hash.finalize().prefix(FeedToken.fingerprintSize))
    }
}
