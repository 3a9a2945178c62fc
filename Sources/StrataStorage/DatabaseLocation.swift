import Foundation

/// Where the services' data lives.
public enum DatabaseLocation: Sendable, Equatable {
    /// One SQLite file served as a single service.
    case sqliteFile(path: String)
    /// A PostgreSQL database; each schema is a service.
    case postgres(PostgresLocation)

    /// Reads `--database` (or `--system-database`, named by `option` in messages): a
    /// `postgres://user:pass@host:port/db` URL, or a path to a SQLite file.
    public static func parse(_ text: String, option: String = "--database") throws -> DatabaseLocation {
        if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            return .postgres(try PostgresLocation(url: text))
        }
        if text.contains("://") {
            throw ConfigurationError("\(option) must be a SQLite file path or a postgres:// URL, not \(Self.redacted(text))")
        }
        return .sqliteFile(path: text)
    }

    /// The URL without its password, for messages and logs.
    static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? "<database URL>"
    }
}
