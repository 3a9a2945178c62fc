import StrataSQL
/// Settings of the write path kept with each service's settings: whether changes must carry
/// `If-Match` (428 Precondition Required when they do not).
extension SystemDatabase {
    var writesMigrations: [SystemMigration] {
        [
            SystemMigration(id: "writes.1", statements: [
                "ALTER TABLE \(table("service_settings")) ADD COLUMN \"require_if_match\" BOOLEAN NOT NULL DEFAULT FALSE",
            ]),
        ]
    }

    /// Turns the If-Match requirement of a service on or off (the service's settings row is created if missing).
    func setRequireIfMatch(_ service: String, _ required: Bool) async throws {
        try await updateServiceSettings(service) { $0.requireIfMatch = required }
    }
}
