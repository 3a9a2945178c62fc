extension ApplyTransformation {
    /// The transformation as written in a URL (before percent-encoding): `groupby((make),aggregate(price with sum as Total))`.
    /// Parsing it gives back an equal value.
    public var text: String {
        switch self {
        case .aggregate(let items):
            return "aggregate(" + items.map(\.text).joined(separator: ",") + ")"
        case .groupBy(let paths, let items):
            let grouped = "groupby((" + paths.map(\.description).joined(separator: ",") + ")"
            return items.isEmpty ? grouped + ")" : grouped + ",aggregate(" + items.map(\.text).joined(separator: ",") + "))"
        case .filter(let expression):
            return "filter(" + expression.text + ")"
        case .compute(let items):
            return "compute(" + items.map(\.text).joined(separator: ",") + ")"
        case .orderBy(let items):
            return "orderby(" + QueryPrinter.orderBy(items) + ")"
        case .top(let count):
            return "top(\(count))"
        case .skip(let count):
            return "skip(\(count))"
        case .identity:
            return "identity"
        }
    }

    /// A whole `$apply`: the transformations joined with `/`.
    public static func text(_ transformations: [ApplyTransformation]) -> String {
        transformations.map(\.text).joined(separator: "/")
    }
}

extension AggregateItem {
    /// `price with sum as Total`, `$count as Count`.
    public var text: String {
        switch operand {
        case .count: return "$count as \(alias)"
        case .value(let expression, let method): return "\(expression.text) with \(method.rawValue) as \(alias)"
        }
    }
}

extension ComputeItem {
    /// `price mul 2 as Double`.
    public var text: String { "\(expression.text) as \(alias)" }
}
