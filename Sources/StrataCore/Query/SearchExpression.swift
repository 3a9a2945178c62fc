/// V4's `$search`: words and phrases combined with `AND` (also implicit, between neighbours), `OR`
/// and `NOT`, grouped with parentheses — `$search=(red OR blue) "sports car" NOT used`.
///
/// OData leaves what a term matches to the service. Strata's rule: an entity matches a term when
/// one of its string properties that the caller may read contains the term, ignoring case. The
/// server turns a search into a `$filter` over those properties, so row filters, limits and paging
/// apply as to any filter.
public indirect enum SearchExpression: Sendable, Hashable {
    /// A word (`blue`) or a phrase (`"blue green"`), without its quotation marks.
    case term(String)
    case not(SearchExpression)
    case and(SearchExpression, SearchExpression)
    case or(SearchExpression, SearchExpression)

    /// The canonical `$search` text (not percent-encoded): a term that is not a plain word is
    /// quoted (a phrase cannot hold quotation marks: they are left out), and operators are written out.
    public var text: String { write(parentPrecedence: 0) }

    private var precedence: Int {
        switch self {
        case .or: return 1
        case .and: return 2
        case .not, .term: return 3
        }
    }

    private func write(parentPrecedence: Int) -> String {
        let written: String
        switch self {
        case .term(let text) where text.isEmpty: written = "''"
        case .term(let text): written = SearchParser.isPlainWord(text) ? text : "\"" + text.filter { $0 != "\"" } + "\""
        case .not(let operand): written = "NOT " + operand.write(parentPrecedence: 3)
        case .and(let left, let right): written = left.write(parentPrecedence: 2) + " AND " + right.write(parentPrecedence: 2)
        case .or(let left, let right): written = left.write(parentPrecedence: 1) + " OR " + right.write(parentPrecedence: 1)
        }
        return precedence < parentPrecedence ? "(" + written + ")" : written
    }
}
