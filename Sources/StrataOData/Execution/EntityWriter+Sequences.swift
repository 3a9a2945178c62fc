import StrataCore
import StrataSQL
import StrataStorage

extension EntityWriter {
    /// After an insert that gave values for generated integer columns (a client key the service
    /// allows, see ``GeneratedValues``), moves each column's PostgreSQL sequence past the value, so
    /// that the next insert that leaves the column to the database does not collide with it.
    ///
    /// SQLite needs nothing: a rowid or `AUTOINCREMENT` key continues after the largest key.
    /// The statement sets the sequence to the given value only when the sequence's next value (its
    /// last one plus one, or its start when it was never used) does not exceed it, so it never moves
    /// a sequence backwards and takes no value from it. Sequences are not transactional: when the
    /// insert rolls back the sequence stays moved, which leaves a gap and nothing worse.
    /// `values` are by property name, as ``insert(into:type:values:)`` takes them.
    func advanceSequences(of set: EntitySet, type: EntityType, values: [(column: String, value: ODataValue)]) async throws {
        guard connection.dialect == .postgres else { return }
        let table = service.storage.table(set.name)
        for (name, value) in values {
            guard let property = type.property(named: name), property.isServerGenerated, property.type.isIntegral,
                  let given = value.integerValue else { continue }
            // The sequence belongs to the database's column, which the property may name differently.
            let column = service.storage.column(property.name, of: type)
            // pg_get_serial_sequence takes the table's name as text, quoted as in SQL (a column
            // without a sequence, such as a computed one, has none and the statement does nothing).
            let quotedTable = (table.schema.map { SQLDialect.postgres.quote($0) + "." } ?? "") + SQLDialect.postgres.quote(table.name)
            try await connection.execute("""
                SELECT setval(q.s, \(bind: .int64(given))) \
                FROM (SELECT pg_get_serial_sequence(\(bind: .string(quotedTable)), \(bind: .string(column)))::regclass AS s) AS q \
                WHERE \(bind: .int64(given)) >= coalesce(pg_sequence_last_value(q.s) + 1, \
                (SELECT p.seqstart FROM pg_catalog.pg_sequence p WHERE p.seqrelid = q.s))
                """)
        }
    }
}
