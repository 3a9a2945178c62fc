import StrataCore
import StrataSQL

/// A service's model file as the system database holds it: the text every server applies, and
/// when it was stored.
package struct StoredModel: Sendable, Hashable {
    package var text: String
    /// Milliseconds since 1970: when the text was stored, or the modification time of the file it
    /// was imported from when that is later. A data directory's model file replaces the stored text
    /// only when the file was changed after this.
    package var updatedAt: Int64

    package init(text: String, updatedAt: Int64) {
        self.text = text
        self.updatedAt = updatedAt
    }
}

/// The `service_models` table: the model file of each service that has one, shared by every server
/// on the system database (a model file in one server's data directory would shape only that server).
extension SystemDatabase {
    var serviceModelMigrations: [SystemMigration] {
        [
            SystemMigration(id: "models.1", statements: [
                """
                CREATE TABLE \(table("service_models")) (
                    "service" VARCHAR(128) NOT NULL PRIMARY KEY,
                    "text" TEXT NOT NULL,
                    "updated_at" BIGINT NOT NULL
                )
                """,
            ]),
        ]
    }

    /// Every stored model by service.
    package func serviceModels() async throws -> [String: StoredModel] {
        let rows = try await database.read { connection in
            try await connection.query("SELECT \"service\", \"text\", \"updated_at\" FROM \(table("service_models"))",
                                       types: [.string, .string, .int64])
        }
        var models: [String: StoredModel] = [:]
        for row in rows.rows {
            guard let service = row[0].stringValue, let text = row[1].stringValue else { continue }
            models[service] = StoredModel(text: text, updatedAt: row[2].integerValue ?? 0)
        }
        return models
    }

    /// Stores (or replaces) a service's model and tells every server to load its services again.
    package func storeModel(_ model: StoredModel, for service: String) async throws {
        try await database.transaction { connection in
            let models = table("service_models")
            try await connection.execute("DELETE FROM \(models) WHERE \"service\" = \(bind: .string(service))")
            try await connection.execute("""
                INSERT INTO \(models) ("service", "text", "updated_at")
                VALUES (\(bind: .string(service)), \(bind: .string(model.text)), \(bind: .int64(model.updatedAt)))
                """)
            try await announce(.services, on: connection)
        }
    }

    /// Removes a service's model (it is then served as its catalog describes it); answers whether
    /// there was one.
    @discardableResult
    package func removeModel(for service: String) async throws -> Bool {
        try await database.transaction { connection in
            let rows = try await connection.query(
                "DELETE FROM \(table("service_models")) WHERE \"service\" = \(bind: .string(service)) RETURNING \"service\"")
            try await announce(.services, on: connection)
            return !rows.rows.isEmpty
        }
    }

    /// Tells every server on this database to load its services again (`strata service reload`).
    package func announceReload() async throws {
        try await database.transaction { connection in
            try await announce(.services, on: connection)
        }
    }
}
