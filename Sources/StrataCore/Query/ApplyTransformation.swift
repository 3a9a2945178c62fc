/// One transformation of `$apply` (OData's Data Aggregation extension), as written in the URL and
/// before it is checked against a model. A `$apply` is a sequence of them, each working on what the
/// one before produced: `filter(year gt 2000)/groupby((Car/make),aggregate(price with sum as Total))`.
///
/// Strata implements the transformations below; the parser refuses the rest of the extension
/// (`rollup`, `concat`, `topcount`, custom aggregates, `from`, …) with 501 and names what is supported.
public indirect enum ApplyTransformation: Sendable, Hashable {
    /// `aggregate(price with sum as Total,$count as Count)`: the whole input set becomes one row.
    case aggregate([AggregateItem])
    /// `groupby((make,Car/model),aggregate(…))`: one row per distinct combination of the paths, with
    /// the aggregates of its rows; without `aggregate` only the distinct combinations.
    case groupBy([PropertyPath], aggregate: [AggregateItem])
    /// `filter(expr)`: keeps the rows for which the Boolean expression is true.
    case filter(QueryExpression)
    /// `compute(expr as Alias,…)`: adds computed properties to every row.
    case compute([ComputeItem])
    /// `orderby(expr desc,…)`.
    case orderBy([OrderByItem])
    /// `top(n)`.
    case top(Int)
    /// `skip(n)`.
    case skip(Int)
    /// `identity`: the input unchanged.
    case identity

    /// True for `aggregate` and `groupby`, which turn entities into rows of aggregated values.
    public var isAggregation: Bool {
        switch self {
        case .aggregate, .groupBy: return true
        default: return false
        }
    }
}

/// One aggregate of `aggregate(…)`: `price with sum as Total` or `$count as Count`.
public struct AggregateItem: Sendable, Hashable {
    /// What is aggregated and how.
    public enum Operand: Sendable, Hashable {
        /// `$count`: the number of rows.
        case count
        /// An expression of each row (usually a property) and the method that combines them.
        case value(QueryExpression, AggregationMethod)
    }

    public var operand: Operand
    /// The name the aggregated value has in the result.
    public var alias: String

    public init(_ operand: Operand, as alias: String) {
        self.operand = operand
        self.alias = alias
    }
}

/// The standard aggregation methods of the extension; custom ones (`Namespace.method`) are not served.
public enum AggregationMethod: String, Sendable, Hashable, CaseIterable {
    case sum, min, max, average, countdistinct
}

/// A computed property: `price mul 2 as DoublePrice`, in `$compute` or in `compute(…)` of `$apply`.
public struct ComputeItem: Sendable, Hashable {
    public var expression: QueryExpression
    /// The name of the computed property.
    public var alias: String

    public init(_ expression: QueryExpression, as alias: String) {
        self.expression = expression
        self.alias = alias
    }
}
