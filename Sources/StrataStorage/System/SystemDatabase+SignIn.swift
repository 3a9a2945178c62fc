import StrataSQL

/// The tables of hosted sign-in: identity providers and their rules, each service's redirect URIs
/// and sign-up setting, flows in progress, one-time codes, and the provider identities linked to
/// accounts (docs/design/HOSTED-SIGN-IN.md).
///
/// Flows and codes live here rather than in a server's memory so that a provider's callback, or the
/// app's code redemption, may reach another server behind the load balancer than the one that
/// started the flow. Only SHA-256 hashes of states and codes are stored.
extension SystemDatabase {
    var signInMigrations: [SystemMigration] {
        let providers = table("identity_providers")
        let accounts = table("accounts")
        return [SystemMigration(id: "signin.1", statements: [
            // The client secret is sealed as signing keys are (`sealed_by`, `key_check`: see StoredSigningKey).
            """
            CREATE TABLE \(providers) (
                "name" VARCHAR(64) NOT NULL PRIMARY KEY,
                "kind" VARCHAR(16) NOT NULL,
                "issuer" VARCHAR(512) NOT NULL,
                "client_id" VARCHAR(512) NOT NULL,
                "sealed_secret" TEXT,
                "sealed_by" VARCHAR(16),
                "key_check" VARCHAR(64),
                "scopes" VARCHAR(512) NOT NULL,
                "display_name" VARCHAR(128) NOT NULL,
                "icon_url" VARCHAR(1024),
                "authorization_endpoint" VARCHAR(1024),
                "token_endpoint" VARCHAR(1024),
                "userinfo_endpoint" VARCHAR(1024),
                "pass_token" BOOLEAN NOT NULL,
                "created_at" BIGINT NOT NULL
            )
            """,
            // A provider's rule group: `role` rules as issuers have them, and output claims
            // (`pass`, `rename`, `set`: see ClaimOutput).
            """
            CREATE TABLE \(table("provider_rules")) (
                "provider" VARCHAR(64) NOT NULL REFERENCES \(providers) ("name") ON DELETE CASCADE,
                "kind" VARCHAR(16) NOT NULL,
                "claim" VARCHAR(256) NOT NULL,
                "match" VARCHAR(16) NOT NULL,
                "value" VARCHAR(512) NOT NULL,
                "output" VARCHAR(256) NOT NULL,
                "allow_unverified" BOOLEAN NOT NULL,
                PRIMARY KEY ("provider", "kind", "claim", "match", "value", "output")
            )
            """,
            // Redirect URIs one per line, compared exactly.
            """
            CREATE TABLE \(table("service_sign_in")) (
                "service" VARCHAR(128) NOT NULL PRIMARY KEY,
                "redirect_uris" TEXT NOT NULL,
                "sign_up" BOOLEAN NOT NULL,
                "sign_up_role" VARCHAR(64)
            )
            """,
            """
            CREATE TABLE \(table("sign_in_flows")) (
                "state_hash" VARCHAR(64) NOT NULL PRIMARY KEY,
                "provider" VARCHAR(64) NOT NULL,
                "service" VARCHAR(128) NOT NULL,
                "redirect_uri" VARCHAR(1024) NOT NULL,
                "app_state" VARCHAR(1024) NOT NULL,
                "code_challenge" VARCHAR(128) NOT NULL,
                "nonce" VARCHAR(64) NOT NULL,
                "verifier" VARCHAR(128) NOT NULL,
                "link_subject" VARCHAR(128),
                "expires_at" BIGINT NOT NULL
            )
            """,
            """
            CREATE INDEX "IX_sign_in_flows_expires" ON \(table("sign_in_flows")) ("expires_at")
            """,
            // `session_id` is set at redemption, so that a second redemption can end that sign-in.
            """
            CREATE TABLE \(table("sign_in_codes")) (
                "code_hash" VARCHAR(64) NOT NULL PRIMARY KEY,
                "username" VARCHAR(128) NOT NULL REFERENCES \(accounts) ("username") ON DELETE CASCADE,
                "provider" VARCHAR(64) NOT NULL,
                "redirect_uri" VARCHAR(1024) NOT NULL,
                "code_challenge" VARCHAR(128) NOT NULL,
                "claims" TEXT NOT NULL,
                "provider_token" TEXT,
                "expires_at" BIGINT NOT NULL,
                "used_at" BIGINT,
                "session_id" VARCHAR(64)
            )
            """,
            """
            CREATE INDEX "IX_sign_in_codes_expires" ON \(table("sign_in_codes")) ("expires_at")
            """,
            """
            CREATE TABLE \(table("account_identities")) (
                "provider" VARCHAR(64) NOT NULL REFERENCES \(providers) ("name") ON DELETE CASCADE,
                "subject" VARCHAR(256) NOT NULL,
                "username" VARCHAR(128) NOT NULL REFERENCES \(accounts) ("username") ON DELETE CASCADE,
                "created_at" BIGINT NOT NULL,
                PRIMARY KEY ("provider", "subject")
            )
            """,
            """
            CREATE INDEX "IX_account_identities_username" ON \(table("account_identities")) ("username")
            """,
            // A session opened through a provider: its rules give roles and claims on every request,
            // and the provider's access token (sealed) is handed to that session only.
            "ALTER TABLE \(table("auth_sessions")) ADD COLUMN \"provider\" VARCHAR(64)",
            "ALTER TABLE \(table("auth_sessions")) ADD COLUMN \"provider_token\" TEXT",
        ]),
        // Flows are counted per client address (a SHA-256 of it), so that one address cannot make
        // the database keep flows without bound (AuthSettings.maxOpenSignInsPerAddress).
        SystemMigration(id: "signin.2", statements: [
            "ALTER TABLE \(table("sign_in_flows")) ADD COLUMN \"client_hash\" VARCHAR(64)",
            "CREATE INDEX \"IX_sign_in_flows_client\" ON \(table("sign_in_flows")) (\"client_hash\", \"expires_at\")",
        ])]
    }
}
