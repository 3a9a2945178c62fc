import Foundation
import StrataCore

/// The SQL databases Strata stores services in: the one dialect type of the OData planner, the
/// client SQL emitter and every system store. What differs between them in SQL text (placeholders,
/// quoting, function spellings) is decided here, in ``FunctionTable`` or in the drivers.
public enum SQLDialect: String, Sendable, Hashable, CaseIterable {
    /// SQLite: `?` placeholders, timestamps stored as text `YYYY-MM-DD HH:MM:SS.SSS`.
    case sqlite
    /// PostgreSQL: `$1`, `$2`, … placeholders; one schema per service.
    case postgres

    /// Quotes an identifier taken from the catalog. Identifiers never come from request input;
    /// quoting keeps mixed case and reserved words intact.
    public func quote(_ identifier: String) -> String {
        // Catalog names rarely hold a quote; replacingOccurrences goes through NSString on Linux.
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
        return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The placeholder for the bind at a 1-based position.
    public func placeholder(_ position: Int) -> String {
        switch self {
        case .sqlite: return "?"
        case .postgres: return "$\(position)"
        }
    }
}
