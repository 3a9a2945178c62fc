import PostgresNIO
import StrataCore

/// The statements that answer a lease's log position (``PostgresDatabase/Role``), prepared once per
/// connection: a position follows every read of a server with standbys, and an unnamed statement
/// costs PostgreSQL its parsing and planning each time.
struct PrimaryPositionStatement: PostgresPreparedStatement {
    static let name = "strata_position_primary"
    /// The insert position read after a commit is past the commit record, also when
    /// `synchronous_commit` is off and the record is not yet written.
    static let sql = "SELECT pg_current_wal_insert_lsn()::text"
    typealias Row = String?

    func makeBindings() -> PostgresBindings { PostgresBindings() }
    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(String?.self) }
}

struct StandbyPositionStatement: PostgresPreparedStatement {
    static let name = "strata_position_standby"
    /// The replay position is past the snapshot the lease's statements read; a standby promoted
    /// meanwhile answers its insert position instead.
    static let sql = "SELECT COALESCE(pg_last_wal_replay_lsn(), pg_current_wal_insert_lsn())::text"
    typealias Row = String?

    func makeBindings() -> PostgresBindings { PostgresBindings() }
    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(String?.self) }
}
