import StrataSQL

/// Whether a service lets clients choose values for the keys its database generates.
///
/// Off by default: a key the database generates (an identity or serial column on PostgreSQL, an
/// `INTEGER PRIMARY KEY` on SQLite) is assigned by the database on every insert, and a value for it
/// in a body is refused with 400. A client that chose keys could push the table's next key out of
/// the key's range or leave PostgreSQL's sequence behind its rows. An operator who wants clients to
/// choose (a migration, keys meaningful elsewhere) turns it on per service, and Strata then moves
/// the sequence past every key a client gave.
extension SystemDatabase {
    var clientKeyMigrations: [SystemMigration] {
        [
            SystemMigration(id: "services.4", statements: [
                "ALTER TABLE \(table("service_settings")) ADD COLUMN \"allow_client_keys\" BOOLEAN NOT NULL DEFAULT FALSE",
            ]),
        ]
    }
}
