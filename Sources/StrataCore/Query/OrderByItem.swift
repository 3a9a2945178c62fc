/// One key of `$orderby`: an expression and a direction, `PersonCar/Car/make desc`.
public struct OrderByItem: Sendable, Hashable {
    /// The sort key.
    public var expression: QueryExpression
    /// `asc` or `desc`.
    public var direction: SortDirection

    public init(_ expression: QueryExpression, _ direction: SortDirection = .ascending) {
        self.expression = expression
        self.direction = direction
    }

    /// `expression` (ascending, the default).
    public static func ascending(_ expression: QueryExpression) -> OrderByItem {
        OrderByItem(expression, .ascending)
    }

    /// `expression desc`.
    public static func descending(_ expression: QueryExpression) -> OrderByItem {
        OrderByItem(expression, .descending)
    }
}

/// `asc` or `desc`; ascending when the URL names none.
public enum SortDirection: String, Sendable, Hashable, CaseIterable {
    case ascending = "asc"
    case descending = "desc"
}
