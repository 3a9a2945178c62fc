import Foundation

/// The SQL databases Strata stores services in. Everything that differs between them in SQL text
/// (placeholders, quoting of catalog identifiers) is decided here or in the drivers.
enum SQLDialect: String, Sendable {
    case sqlite
    case postgres

    /// Quotes an identifier taken from the catalog. Identifiers never come from request input;
    /// quoting keeps mixed case and reserved words intact.
    func quote(_ identifier: String) -> String {
        // Catalog names rarely hold a quote; replacingOccurrences goes through NSString on Linux.
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
        return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The placeholder for the bind at a 1-based position.
    func placeholder(_ position: Int) -> String {
        switch self {
        case .sqlite: return "?"
        case .postgres: return "$\(position)"
        }
    }
}
