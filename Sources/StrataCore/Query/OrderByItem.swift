/// One key of `$orderby`: an expression and a direction, `PersonCar/Car/make desc`.
public struct OrderByItem: Sendable, Hashable {
    public var expression: QueryExpression
    public var direction: SortDirection

    public init(_ expression: QueryExpression, _ direction: SortDirection = .ascending) {
        self.expression = expression
        self.direction = direction
    }

    public static func ascending(_ expression: QueryExpression) -> OrderByItem {
        OrderByItem(expression, .ascending)
    }

    public static func descending(_ expression: QueryExpression) -> OrderByItem {
        OrderByItem(expression, .descending)
    }
}

/// `asc` or `desc`; ascending when the URL names none.
public enum SortDirection: String, Sendable, Hashable, CaseIterable {
    case ascending = "asc"
    case descending = "desc"
}
