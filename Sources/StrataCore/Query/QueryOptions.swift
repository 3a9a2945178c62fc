/// The query options of one OData V2 request: `$filter`, `$orderby`, `$top`, `$skip`, `$select`,
/// `$expand`, `$inlinecount`, `$skiptoken`, `$format`, and any custom (non-`$`) options.
///
/// The client builds requests with it, the server parses them into it:
/// ```swift
/// var options = QueryOptions()
/// options.filter = .property("lastName").eq("Samson")
/// options.expand = ["PersonCar", "PersonCar/Car"]
/// options.queryString  // "$filter=lastName%20eq%20'Samson'&$expand=PersonCar,PersonCar/Car"
///
/// let parsed = try QueryOptions(parsing: "$top=10&$orderby=lastName%20desc")
/// ```
/// Parsing checks syntax and the limits on size and depth; the server then checks names and types against its model.
public struct QueryOptions: Sendable, Hashable {
    /// `$filter`: a Boolean expression rows must satisfy.
    public var filter: QueryExpression?
    /// `$orderby`: sort keys, most significant first; empty when the request has none.
    public var orderBy: [OrderByItem]
    /// `$top`: at most this many rows (non-negative).
    public var top: Int?
    /// `$skip`: leave out this many rows first (non-negative).
    public var skip: Int?
    /// `$select`: which properties to return; empty means all.
    public var select: [SelectItem]
    /// `$expand`: navigation paths whose entities are returned inline; `A/B` expands `A` too.
    public var expand: [PropertyPath]
    /// V4's options of expanded paths (`$expand=PersonCar($top=1)`), by the whole path from the
    /// entities the query reads (`PersonCar/Car` for `PersonCar($expand=Car($select=make))`).
    public var expandOptions: [PropertyPath: ExpandOptions]
    /// `$inlinecount`.
    public var inlineCount: InlineCount?
    /// `$skiptoken`: where server-driven paging continues; opaque to everyone but the server that wrote it.
    public var skipToken: String?
    /// `$format`, for example `json`.
    public var format: String?
    /// Options whose names do not start with `$`, in the order written; a name may repeat.
    public var customOptions: [CustomQueryOption]
    /// V4's `$apply` (Data Aggregation): transformations applied in order before the other options;
    /// empty when the request has none.
    public var apply: [ApplyTransformation] = []
    /// V4's `$compute`: computed properties added to each entity; empty when the request has none.
    public var compute: [ComputeItem] = []
    /// V4's `$search`: free-text terms an entity's string properties must contain; nil when the
    /// request has none.
    public var search: SearchExpression?

    public init(
        filter: QueryExpression? = nil,
        orderBy: [OrderByItem] = [],
        top: Int? = nil,
        skip: Int? = nil,
        select: [SelectItem] = [],
        expand: [PropertyPath] = [],
        expandOptions: [PropertyPath: ExpandOptions] = [:],
        inlineCount: InlineCount? = nil,
        skipToken: String? = nil,
        format: String? = nil,
        customOptions: [CustomQueryOption] = []
    ) {
        self.filter = filter
        self.orderBy = orderBy
        self.top = top
        self.skip = skip
        self.select = select
        self.expand = expand
        self.expandOptions = expandOptions
        self.inlineCount = inlineCount
        self.skipToken = skipToken
        self.format = format
        self.customOptions = customOptions
    }

    /// True when no option is set.
    public var isEmpty: Bool { self == QueryOptions() }
}

/// `$inlinecount`: whether a collection response carries the total count of matching rows.
public enum InlineCount: String, Sendable, Hashable, CaseIterable {
    /// `allpages`: include `__count`, the number of rows before `$top` and `$skip`.
    case allPages = "allpages"
    /// `none`: no count, as when the option is absent.
    case none
}

/// A query option that is not an OData system option, kept for the application: `?code=42`.
public struct CustomQueryOption: Sendable, Hashable {
    /// The decoded name; never starts with `$`.
    public var name: String
    /// The decoded value; empty for `?flag`.
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
