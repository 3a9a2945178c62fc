import StrataCore

/// Bounds on the size of client SQL, so a request cannot make the parser, the checker or the
/// database do unbounded work.
///
/// The defaults fit the queries a data-table client writes by hand with a wide margin; a server
/// that needs more can raise them per service.
public struct SQLLimits: Sendable, Hashable {
    /// Longest accepted query text, in UTF-8 bytes.
    public var maxLength: Int
    /// Deepest accepted nesting of expressions (parentheses, operators, function arguments).
    /// Parsing, checking and emitting recurse over the nesting, so this bounds their stack use:
    /// debug builds first overflow a Swift Testing thread's stack between 400 and 800 levels of
    /// parentheses, so the default of 48 leaves a wide margin for server threads too.
    public var maxDepth: Int
    /// Most expression nodes, table references and select items one query may have.
    public var maxNodes: Int
    /// Longest accepted name (table, column, alias or parameter), in characters.
    public var maxNameLength: Int

    public init(maxLength: Int = 16_384, maxDepth: Int = 48, maxNodes: Int = 2_000, maxNameLength: Int = 128) {
        self.maxLength = maxLength
        self.maxDepth = maxDepth
        self.maxNodes = maxNodes
        self.maxNameLength = maxNameLength
    }

    /// The limits used when a caller does not choose its own.
    public static let `default` = SQLLimits()
}
