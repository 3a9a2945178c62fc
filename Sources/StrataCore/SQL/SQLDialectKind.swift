/// The databases Strata re-emits client SQL for.
public enum SQLDialectKind: String, Sendable, Hashable, CaseIterable {
    /// SQLite: `?` placeholders, timestamps stored as text `YYYY-MM-DD HH:MM:SS.SSS`.
    case sqlite
    /// PostgreSQL: `$1`, `$2`, … placeholders.
    case postgres
}
