/// The names of OData V2 delta responses (docs/design/CHANGE-FEED.md §3), shared by the server that
/// writes them and the client that reads them: Apache Olingo V2's JSON form, asked for with the V4
/// preference.
///
/// ```json
/// {"d":{"results":[
///    {"__metadata":{"uri":"https://h/cardealer/Cars(5)","type":"CarDealer.Car"},"carID":5},
///    {"@odata.context":"$metadata#Cars/$deletedEntity","id":"https://h/cardealer/Cars(9)"}],
///   "__delta":"https://h/cardealer/Cars?!deltatoken=AQ…"}}
/// ```
public enum ODataDelta {
    /// The `Prefer` value a first read sends to ask for a delta link, and the server's
    /// `Preference-Applied` value when it gives one.
    public static let trackChangesPreference = "odata.track-changes"
    /// The member beside `results` on a collection's last page holding the delta link.
    public static let deltaLinkMember = "__delta"
    /// The custom query option of a delta link: the token of the changes after the read.
    public static let deltaTokenOption = "!deltatoken"
    /// The custom query option of the `__next` links of a tracked read's earlier pages: the cursor
    /// the read started at, so a client following `__next` need not repeat the preference.
    public static let deltaStartOption = "!deltastart"
    /// The OData error code of the `410 Gone` answer to a token that can no longer be used, and of
    /// a change stream's `gone` event: read the data again from scratch.
    public static let tokenGoneCode = "DeltaTokenGone"
    /// The query option of `$tables` and delta requests that waits for changes (long-poll), in seconds.
    public static let waitOption = "wait"
}

/// A deleted entity in a delta response (a tombstone): the entity that was deleted, or that the
/// caller may no longer read, named by its URI.
///
/// On the wire `{"@odata.context":"$metadata#Cars/$deletedEntity","id":"https://h/cardealer/Cars(9)"}`,
/// exactly the two members Olingo's V2 reader expects.
public struct ODataDeletedEntity: Sendable, Hashable {
    /// The entity set the entity belonged to (`Cars`).
    public var entitySet: String
    /// The entity's URI (`<service root>Cars(9)`), as `__metadata.uri` gave it when it was read.
    public var id: String

    /// A tombstone for the entity at `id` in `entitySet`.
    public init(entitySet: String, id: String) {
        self.entitySet = entitySet
        self.id = id
    }

    static let contextPrefix = "$metadata#"
    static let contextSuffix = "/$deletedEntity"

    /// The `@odata.context` value: `$metadata#Cars/$deletedEntity`.
    public var context: String { Self.context(of: entitySet) }

    /// The context of a deleted entity of `entitySet`, relative to a service root.
    public static func context(of entitySet: String) -> String { contextPrefix + entitySet + contextSuffix }

    /// Writes the tombstone object.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("@odata.context")
        writer.string(context)
        writer.key("id")
        writer.string(id)
        writer.endObject()
    }

    /// Reads a tombstone from one element of `results`; nil when the element is not one (an entity).
    public init?(json: JSONValue) {
        guard case .object(let object) = json, let context = object["@odata.context"]?.stringValue,
              context.hasPrefix(Self.contextPrefix), context.hasSuffix(Self.contextSuffix),
              let id = object["id"]?.stringValue else { return nil }
        let set = context.dropFirst(Self.contextPrefix.count).dropLast(Self.contextSuffix.count)
        guard !set.isEmpty else { return nil }
        self.init(entitySet: String(set), id: id)
    }

    /// The key predicate of ``id``'s last segment (`Cars(9)` → `9`); nil when it has none that parses.
    public var key: KeyPredicate? {
        var path = Substring(id)
        if let query = path.firstIndex(of: "?") { path = path[..<query] }
        guard path.hasSuffix(")") else { return nil }
        let last = path.lastIndex(of: "/").map { path[path.index(after: $0)...] } ?? path
        return (try? PathSegment.parse(rawSegment: last))?.key
    }
}
