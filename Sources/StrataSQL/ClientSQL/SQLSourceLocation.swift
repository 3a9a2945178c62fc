import StrataCore

/// A position in the SQL text a client sent, so that every refusal can say where the problem is.
///
/// Lines and columns count from 1; columns count Unicode scalars, so a name with accents moves
/// the column by one per character the client typed, not per UTF-8 byte.
public struct SQLSourceLocation: Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line 1, column 23`, the form used inside refusal messages.
    public var description: String { "line \(line), column \(column)" }
}
