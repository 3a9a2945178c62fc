import StrataCore
import StrataSQL
import StrataStorage

/// Blob metadata in the system database: containers, and one row per visible blob.
///
/// Content lives in a ``BlobStore``; a row names its object. Rows change only by compare-and-swap
/// on the object id (see `BlobCatalog+Writes.swift`), so concurrent uploads of one name never
/// lose track of an object, on SQLite and on PostgreSQL alike. Every value is a bound parameter.
package struct BlobCatalog: Sendable {
    let system: SystemDatabase

    package init(system: SystemDatabase) {
        self.system = system
    }

    var database: any Database { system.database }
    func q(_ table: String) -> TableName { system.table(table) }
    var dialect: SQLDialect { system.dialect }

    // MARK: Containers

    package func container(_ name: String) async throws -> BlobContainer? {
        let statement = SQLStatement("SELECT \"name\", \"access\", \"created_at\" FROM \(q("blob_containers")) WHERE \"name\" = \(bind: .string(name))", dialect: dialect)
        let rows = try await database.read { try await $0.query(statement, types: Self.containerTypes) }
        return rows.rows.first.flatMap(Self.container)
    }

    func containers() async throws -> [BlobContainer] {
        let statement = SQLStatement("SELECT \"name\", \"access\", \"created_at\" FROM \(q("blob_containers")) ORDER BY \"name\"", dialect: dialect)
        let rows = try await database.read { try await $0.query(statement, types: Self.containerTypes) }
        return rows.rows.compactMap(Self.container)
    }

    private static let containerTypes: [EDMPrimitiveType?] = [.string, .string, .int64]

    private static func container(_ row: [ODataValue]) -> BlobContainer? {
        guard let name = row[0].stringValue, let access = row[1].stringValue.flatMap(ContainerAccess.init(rawValue:)) else { return nil }
        return BlobContainer(name: name, access: access, createdAt: row[2].integerValue ?? 0)
    }

    // MARK: Blobs

    static let blobColumns = SQL.identifiers(["container", "name", "object", "size", "sha256", "content_type", "modified_at"])
    static let blobTypes: [EDMPrimitiveType?] = [.string, .string, .string, .int64, .string, .string, .int64]

    static func record(_ row: [ODataValue]) -> BlobRecord? {
        guard let container = row[0].stringValue, let name = row[1].stringValue, let object = row[2].stringValue,
              let size = row[3].integerValue, let sha256 = row[4].stringValue, let contentType = row[5].stringValue,
              let modified = row[6].integerValue else { return nil }
        return BlobRecord(container: container, name: name, object: object, size: size, sha256: sha256,
                          contentType: contentType, modifiedAt: modified)
    }

    func blob(container: String, name: String) async throws -> BlobRecord? {
        let statement = SQLStatement("SELECT \(Self.blobColumns) FROM \(q("blobs")) WHERE \"container\" = \(bind: .string(container)) AND \"name\" = \(bind: .string(name))", dialect: dialect)
        let rows = try await database.read { try await $0.query(statement, types: Self.blobTypes) }
        return rows.rows.first.flatMap(Self.record)
    }

    /// Up to `limit` blobs of a container in byte order of their names, those starting with
    /// `prefix` and coming after `marker`. The prefix is a range of names, so the primary key's
    /// index serves it however many blobs the container holds.
    func list(container: String, prefix: String, after marker: String?, limit: Int) async throws -> [BlobRecord] {
        var sql: SQL = "SELECT \(Self.blobColumns) FROM \(q("blobs")) WHERE \"container\" = \(bind: .string(container)) AND \"name\" >= \(bind: .string(prefix))"
        if let end = BlobNames.successor(ofPrefix: prefix), !prefix.isEmpty {
            sql += " AND \"name\" < \(bind: .string(end))"
        }
        if let marker {
            sql += " AND \"name\" > \(bind: .string(marker))"
        }
        sql += " ORDER BY \"name\" LIMIT \(bind: .int64(Int64(limit)))"
        let statement = SQLStatement(sql, dialect: dialect)
        let rows = try await database.read { try await $0.query(statement, types: Self.blobTypes) }
        return rows.rows.compactMap(Self.record)
    }

    /// Every object id some blob names, for the sweep of unreferenced objects at start.
    func referencedObjects() async throws -> Set<String> {
        let statement = SQLStatement("SELECT \"object\" FROM \(q("blobs"))", dialect: dialect)
        let rows = try await database.read { try await $0.query(statement, types: [.string]) }
        return Set(rows.rows.compactMap { $0[0].stringValue })
    }

    /// The SHA-256 recorded for each object some blob names: copies of objects from one store to
    /// another are checked against it.
    func recordedHashes() async throws -> [String: String] {
        let statement = SQLStatement("SELECT \"object\", \"sha256\" FROM \(q("blobs"))", dialect: dialect)
        let rows = try await database.read { try await $0.query(statement, types: [.string, .string]) }
        return Dictionary(rows.rows.compactMap { row in row[0].stringValue.flatMap { object in row[1].stringValue.map { (object, $0) } } },
                          uniquingKeysWith: { first, _ in first })
    }
}
