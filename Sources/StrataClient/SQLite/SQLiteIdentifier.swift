import Foundation

/// An SQL identifier (a table, column or index name) written as SQLite reads it: in double quotes,
/// with each double quote doubled. The names come from the server's model, never from a
/// statement's text, and quoting them this way makes any name one identifier — a name cannot end
/// the quotes and add SQL of its own.
struct SQLiteIdentifier: Sendable, Hashable, CustomStringConvertible {
    /// The name as given.
    let name: String

    init(_ name: String) {
        self.name = name
    }

    /// The quoted form, for statement text.
    var quoted: String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    var description: String { quoted }
}
