import StrataCore
import StrataSQL

/// The tables of accounts, roles, grants, sessions and trusted issuers.
///
/// Times are whole seconds since 1970 in `BIGINT` columns, which both dialects store and compare
/// the same way. "Every service" and "every table" are stored as `*` rather than NULL so that they
/// can be part of a primary key.
extension SystemDatabase {
    /// Listed last: rules on the `email` claim may accept unverified addresses when set.
    var issuerRuleMigrations: [SystemMigration] {
        [SystemMigration(id: "auth.2", statements: [
            "ALTER TABLE \(table("issuer_rules")) ADD COLUMN \"allow_unverified\" BOOLEAN NOT NULL DEFAULT FALSE",
        ])]
    }

    var accountMigrations: [SystemMigration] {
        let accounts = table("accounts")
        let sessions = table("auth_sessions")
        let issuers = table("trusted_issuers")
        return [
            SystemMigration(id: "auth.1", statements: [
                """
                CREATE TABLE \(accounts) (
                    "username" VARCHAR(128) NOT NULL PRIMARY KEY,
                    "password_hash" VARCHAR(128) NOT NULL,
                    "created_at" BIGINT NOT NULL
                )
                """,
                // Roles an account holds, for every service (`*`) or for one.
                """
                CREATE TABLE \(table("account_roles")) (
                    "username" VARCHAR(128) NOT NULL REFERENCES \(accounts) ("username") ON DELETE CASCADE,
                    "role" VARCHAR(64) NOT NULL,
                    "service" VARCHAR(128) NOT NULL,
                    PRIMARY KEY ("username", "role", "service")
                )
                """,
                // Rights of a role on a table (`*`: every table) of a service, with an optional row filter.
                """
                CREATE TABLE \(table("role_grants")) (
                    "role" VARCHAR(64) NOT NULL,
                    "service" VARCHAR(128) NOT NULL,
                    "table_name" VARCHAR(128) NOT NULL,
                    "action" VARCHAR(16) NOT NULL,
                    "row_filter" TEXT,
                    PRIMARY KEY ("role", "service", "table_name", "action")
                )
                """,
                // What callers without credentials may do per service; a service without a row: nothing.
                """
                CREATE TABLE \(table("service_access")) (
                    "service" VARCHAR(128) NOT NULL PRIMARY KEY,
                    "anonymous" VARCHAR(16) NOT NULL
                )
                """,
                // A sign-in: the family of its refresh tokens. Revoking it ends every token of the family.
                """
                CREATE TABLE \(sessions) (
                    "id" VARCHAR(64) NOT NULL PRIMARY KEY,
                    "subject" VARCHAR(256) NOT NULL,
                    "issuer" VARCHAR(512),
                    "claims" TEXT,
                    "created_at" BIGINT NOT NULL,
                    "expires_at" BIGINT NOT NULL,
                    "revoked_at" BIGINT
                )
                """,
                """
                CREATE INDEX "IX_auth_sessions_subject" ON \(sessions) ("subject")
                """,
                // Refresh tokens by the SHA-256 of their text; `used_at` set once rotated.
                """
                CREATE TABLE \(table("refresh_tokens")) (
                    "token_hash" VARCHAR(64) NOT NULL PRIMARY KEY,
                    "session_id" VARCHAR(64) NOT NULL REFERENCES \(sessions) ("id") ON DELETE CASCADE,
                    "issued_at" BIGINT NOT NULL,
                    "used_at" BIGINT
                )
                """,
                """
                CREATE INDEX "IX_refresh_tokens_session" ON \(table("refresh_tokens")) ("session_id")
                """,
                """
                CREATE TABLE \(issuers) (
                    "issuer" VARCHAR(512) NOT NULL PRIMARY KEY,
                    "audience" VARCHAR(512) NOT NULL,
                    "jwks" TEXT NOT NULL,
                    "created_at" BIGINT NOT NULL
                )
                """,
                // Rule groups: a claim (type and value, a value suffix, or any value) of a trusted issuer's token → a role.
                """
                CREATE TABLE \(table("issuer_rules")) (
                    "issuer" VARCHAR(512) NOT NULL REFERENCES \(issuers) ("issuer") ON DELETE CASCADE,
                    "claim" VARCHAR(256) NOT NULL,
                    "match" VARCHAR(16) NOT NULL,
                    "value" VARCHAR(512) NOT NULL,
                    "role" VARCHAR(64) NOT NULL,
                    PRIMARY KEY ("issuer", "claim", "match", "value", "role")
                )
                """,
                // One-time steps already taken (the demo accounts), by name.
                """
                CREATE TABLE \(table("auth_state")) (
                    "name" VARCHAR(64) NOT NULL PRIMARY KEY,
                    "value" TEXT
                )
                """,
            ]),
        ]
    }

}
