import StrataCore
import StrataSQL

/// The tables of blob containers, blobs and container grants in the system database.
///
/// Blob names are compared as bytes on both databases (SQLite's default BINARY collation,
/// `COLLATE "C"` on PostgreSQL), so listings come in the same order everywhere and a `marker`
/// continues exactly after the last name of the previous page. Times are milliseconds since 1970.
extension SystemDatabase {
    var blobMigrations: [SystemMigration] {
        let containers = table("blob_containers")
        let byteOrder: SQL = dialect == .postgres ? " COLLATE \"C\"" : ""
        return [
            SystemMigration(id: "blobs.1", statements: [
                """
                CREATE TABLE \(containers) (
                    "name" VARCHAR(63) NOT NULL PRIMARY KEY,
                    "access" VARCHAR(16) NOT NULL,
                    "created_at" BIGINT NOT NULL
                )
                """,
                // One row per visible blob. `object` names the stored content; a row is written only
                // after its object is complete, which is what makes an upload all or nothing.
                """
                CREATE TABLE \(table("blobs")) (
                    "container" VARCHAR(63) NOT NULL REFERENCES \(containers) ("name"),
                    "name" VARCHAR(1024)\(byteOrder) NOT NULL,
                    "object" VARCHAR(64) NOT NULL,
                    "size" BIGINT NOT NULL,
                    "sha256" VARCHAR(64) NOT NULL,
                    "content_type" VARCHAR(255) NOT NULL,
                    "modified_at" BIGINT NOT NULL,
                    PRIMARY KEY ("container", "name")
                )
                """,
                """
                CREATE INDEX "IX_blobs_object" ON \(table("blobs")) ("object")
                """,
                // Rights of a role on one container (`*`: every container): read, write or delete.
                """
                CREATE TABLE \(table("container_grants")) (
                    "role" VARCHAR(64) NOT NULL,
                    "container" VARCHAR(63) NOT NULL,
                    "action" VARCHAR(16) NOT NULL,
                    PRIMARY KEY ("role", "container", "action")
                )
                """,
            ]),
            // Blob content on PostgreSQL (``PostgresBlobStore``): a row per stored object and a row per
            // chunk of its content. Nothing on SQLite, whose single server keeps content in files
            // (``FileBlobStore``).
            SystemMigration(id: "blobs.2", statements: dialect == .postgres ? blobContentStatements : []),
        ]
    }

    /// `state` is `writing` while an upload streams in, `complete` once it is whole, `deleted` from
    /// the moment no blob names it until its grace period is over (a download that opened it keeps
    /// reading). `updated_at` is when the state last changed, or, while writing, the last sign of
    /// life of the upload. Deleting an object row deletes its chunks.
    private var blobContentStatements: [SQL] {
        let objects = table("blob_objects"), chunks = table("blob_chunks")
        return [
            """
            CREATE TABLE \(objects) (
                "id" VARCHAR(64) NOT NULL PRIMARY KEY,
                "state" VARCHAR(16) NOT NULL,
                "size" BIGINT NOT NULL,
                "chunk_size" INTEGER NOT NULL,
                "updated_at" BIGINT NOT NULL
            )
            """,
            """
            CREATE INDEX "IX_blob_objects_state" ON \(objects) ("state", "updated_at")
            """,
            """
            CREATE TABLE \(chunks) (
                "object" VARCHAR(64) NOT NULL REFERENCES \(objects) ("id") ON DELETE CASCADE,
                "index" INTEGER NOT NULL,
                "data" BYTEA NOT NULL,
                PRIMARY KEY ("object", "index")
            )
            """,
            // Out of line and uncompressed: most blobs are compressed already (images, archives),
            // and compressing every chunk again would cost CPU on each upload for nothing.
            """
            ALTER TABLE \(chunks) ALTER COLUMN "data" SET STORAGE EXTERNAL
            """,
        ]
    }
}
