import Foundation
import Logging
import StrataCore
import StrataSQL
import StrataStorage

/// Deferred deletion and the sweep: see ``PostgresBlobStore``.
extension PostgresBlobStore {
    /// Marks the objects deleted (``open(_:)`` no longer finds them; readers that have them open go
    /// on), then removes those whose grace period is over.
    func delete(_ objects: [String]) async {
        let ids = objects.filter(BlobObjectID.isValid)
        let time = nowMilliseconds
        do {
            try await Self.uncancelled { [self] in
                for start in stride(from: 0, to: ids.count, by: Self.batch) {
                    let batch = ids[start..<min(start + Self.batch, ids.count)].map { ODataValue.string($0) }
                    let mark = SQLStatement(
                        """
                        UPDATE \(self.objects) SET "state" = \(bind: .string(State.deleted.rawValue)), "updated_at" = \(bind: .int64(time)) \
                        WHERE "id" IN (\(SQL.binds(batch))) AND "state" = \(bind: .string(State.complete.rawValue))
                        """, dialect: dialect)
                    try await database.transaction { try await $0.execute(mark) }
                }
                _ = try await purge(before: time - Self.milliseconds(deletionGrace))
            }
        } catch {
            logger.warning("A replaced or deleted blob's content could not be removed; the sweep at the next start removes it",
                           metadata: ["error": .string("\(error)")])
        }
    }

    /// Removes `writing` objects of crashed uploads and objects no blob names, older than `age`,
    /// and deleted objects whose grace period is over.
    func sweep(referenced: Set<String>, olderThan age: Duration) async throws -> Int {
        let time = nowMilliseconds, cutoff = time - Self.milliseconds(age)
        return try await storing("sweeping") {
            let abandoned = SQLStatement(
                """
                DELETE FROM \(objects) WHERE "state" = \(bind: .string(State.writing.rawValue)) AND "updated_at" < \(bind: .int64(cutoff)) RETURNING "id"
                """, dialect: dialect)
            var removed = try await database.transaction { try await $0.query(abandoned) }.rows.count
            let old = SQLStatement(
                """
                SELECT "id" FROM \(objects) WHERE "state" = \(bind: .string(State.complete.rawValue)) AND "updated_at" < \(bind: .int64(cutoff))
                """, dialect: dialect)
            let unnamed = try await database.read { try await $0.query(old, types: [.string]) }.rows
                .compactMap { $0[0].stringValue }.filter { !referenced.contains($0) }
            for start in stride(from: 0, to: unnamed.count, by: Self.batch) {
                let batch = unnamed[start..<min(start + Self.batch, unnamed.count)].map { ODataValue.string($0) }
                let orphans = SQLStatement(
                    """
                    DELETE FROM \(objects) WHERE "id" IN (\(SQL.binds(batch))) AND "state" = \(bind: .string(State.complete.rawValue)) RETURNING "id"
                    """, dialect: dialect)
                removed += try await database.transaction { try await $0.query(orphans) }.rows.count
            }
            return removed + (try await purge(before: time - Self.milliseconds(deletionGrace)))
        }
    }

    /// Removes the objects deleted before `time`, with their chunks; answers how many.
    func purge(before time: Int64) async throws -> Int {
        let statement = SQLStatement(
            """
            DELETE FROM \(objects) WHERE "state" = \(bind: .string(State.deleted.rawValue)) AND "updated_at" < \(bind: .int64(time)) RETURNING "id"
            """, dialect: dialect)
        return try await database.transaction { try await $0.query(statement) }.rows.count
    }
}
