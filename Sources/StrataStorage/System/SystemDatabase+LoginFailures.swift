import StrataSQL

/// The `auth_failures` table: failed logins, one row each, counted by every server on a PostgreSQL
/// system database (``SharedLoginThrottle``). A row is a kind (`address`, `pair`, `account`), a key
/// (a SHA-256 of the address, account and address, or account, so that any name fits and none is
/// stored in clear) and when it happened, in milliseconds of the server's clock. Created on SQLite
/// too, where it stays empty: one server owns the file and counts in memory.
extension SystemDatabase {
    var loginFailureMigrations: [SystemMigration] {
        [
            SystemMigration(id: "throttle.1", statements: [
                """
                CREATE TABLE \(table("auth_failures")) (
                    "kind" VARCHAR(16) NOT NULL,
                    "key" VARCHAR(64) NOT NULL,
                    "at_ms" BIGINT NOT NULL
                )
                """,
                // Counting reads one key's recent rows; pruning finds old rows without a scan.
                "CREATE INDEX \"IX_auth_failures_key\" ON \(table("auth_failures")) (\"kind\", \"key\", \"at_ms\")",
                "CREATE INDEX \"IX_auth_failures_at\" ON \(table("auth_failures")) (\"at_ms\")",
            ]),
        ]
    }
}
