import StrataCore

/// What `$search` means in Strata: a term matches an entity when one of its string properties
/// contains the term, ignoring case. The search becomes a `$filter` over the properties of the
/// caller's model — so a column the caller may not read is never searched, and row filters, the
/// statement limits, paging and `$count` apply as to any filter.
///
/// A property that is null contains nothing: each comparison is guarded, so that `NOT term` also
/// matches entities whose properties are null (SQL's `NOT NULL` would leave them out).
enum SearchFilter {
    static func expression(_ search: SearchExpression, over type: EntityType) -> QueryExpression {
        let searched = type.properties.filter { $0.type == .string }.map { QueryExpression.property(PropertyPath([$0.name])) }
        return expression(search, searched)
    }

    private static func expression(_ search: SearchExpression, _ searched: [QueryExpression]) -> QueryExpression {
        switch search {
        case .term(let text):
            // Lowered here as well as by the database: SQLite's lower() changes ASCII letters only, so
            // "GARCÍA" typed finds "García" stored (a stored "GARCÍA" is found by ASCII letters' case only).
            let term = QueryExpression.literal(.string(text.lowercased()))
            let matches = searched.map { property in
                property.ne(.null) && .call(.contains, [.call(.tolower, [property]), term])
            }
            return matches.dropFirst().reduce(matches.first ?? .literal(.boolean(false)), ||)
        case .not(let operand):
            return !expression(operand, searched)
        case .and(let left, let right):
            return expression(left, searched) && expression(right, searched)
        case .or(let left, let right):
            return expression(left, searched) || expression(right, searched)
        }
    }
}
