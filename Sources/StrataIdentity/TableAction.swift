/// What a request does to a table; rights are granted per action (``TableGrant``).
public enum TableAction: String, Sendable, CaseIterable {
    case read, insert, update, delete
}
