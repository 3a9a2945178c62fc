/// What OData V4 lets `$expand` say about one expanded navigation property:
/// `$expand=PersonCar($filter=carID gt 2;$orderby=carID desc;$top=1;$count=true;$select=carID)`.
///
/// The options apply to the related entities of each parent on their own: `$top=1` is the first
/// related entity of every parent, `$count=true` counts each parent's related entities (after
/// `$filter`, before `$skip` and `$top`). A nested `$expand` is kept as deeper paths of
/// ``QueryOptions/expand`` with options of their own.
public struct ExpandOptions: Sendable, Hashable {
    /// Which related entities to return.
    public var filter: QueryExpression?
    /// Their order, before `skip` and `top`.
    public var orderBy: [OrderByItem]
    /// How many related entities to return per parent, and how many to skip first.
    public var top: Int?
    public var skip: Int?
    /// Whether to count each parent's related entities (`Nav@odata.count`).
    public var count: Bool
    /// Their properties to return; empty for all. Paths are relative to the related entity.
    public var select: [SelectItem]

    public init(filter: QueryExpression? = nil, orderBy: [OrderByItem] = [], top: Int? = nil, skip: Int? = nil,
                count: Bool = false, select: [SelectItem] = []) {
        self.filter = filter
        self.orderBy = orderBy
        self.top = top
        self.skip = skip
        self.count = count
        self.select = select
    }

    /// True when no option is given: `Nav()` says no more than `Nav`.
    public var isEmpty: Bool { self == ExpandOptions() }
}
