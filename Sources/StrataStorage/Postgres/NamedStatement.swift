import Crypto
import Logging
import PostgresNIO
import StrataSQL
import Synchronization

/// Runs statements that repeat with the same text (``SQLStatement/reusableName``) as named prepared
/// statements: each connection parses and plans one once, then only binds and executes it.
///
/// A key lookup through an unnamed statement costs PostgreSQL about twice the CPU of a prepared one
/// (pgbench on the benchmark machine: 113 µs against 47 µs per lookup), most of it parsing and planning.
///
/// postgres-nio prepares only statements whose SQL is a static property of a type
/// (`PostgresPreparedStatement`); ours is known when a service loads. ``NamedStatement`` therefore
/// reads its name and text from a task-local value that ``run(name:sql:binds:on:logger:consume:)``
/// sets around the call. That is sound because `PostgresConnection.execute(_:logger:)` reads the
/// static properties synchronously, in the calling task, before it returns (postgres-nio 1.33). Should
/// a later version read them elsewhere, the precondition in ``NamedStatement/name`` stops the first
/// key read on PostgreSQL, which every such read in the test suite would hit.
///
/// postgres-nio remembers a failed preparation per connection and fails every later execution of
/// that name on that connection without asking the server. A statement whose named execution fails
/// is run once more unnamed; if that succeeds, the failure was such a stale one (the table was
/// missing when the connection prepared it, say), and the statement is no longer run named in this
/// process.
package enum NamedStatements {
    /// A name for `sql`: derived from the text, so that every connection and process agrees on it, and
    /// short, because PostgreSQL truncates names to 63 bytes.
    package static func name(for sql: String) -> String {
        "strata_" + Hex.lowercase(SHA256.hash(data: Array(sql.utf8)).prefix(12))
    }

    /// Names whose named execution failed while the same statement unnamed succeeded.
    private static let abandoned = Mutex<Set<String>>([])

    static func isAbandoned(_ name: String) -> Bool {
        abandoned.withLock { $0.contains(name) }
    }

    static func abandon(_ name: String, logger: Logger) {
        let first = abandoned.withLock { $0.insert(name).inserted }
        if first {
            logger.warning("A prepared statement failed where the same statement unprepared succeeded; it runs unprepared from now on.",
                           metadata: ["statement": .string(name)])
        }
    }

    /// Executes `sql` with `binds` as the statement `name` and hands its rows to `consume`.
    static func run<T>(name: String, sql: String, binds: PostgresBindings, on connection: PostgresConnection, logger: Logger,
                       consume: (AsyncThrowingMapSequence<PostgresRowSequence, PostgresRow>) async throws -> T) async throws -> T {
        try await NamedStatement.$current.withValue(NamedStatement.Definition(name: name, sql: sql)) {
            try await consume(try await connection.execute(NamedStatement(bindings: binds), logger: logger))
        }
    }
}

/// The statement ``NamedStatements/run(name:sql:binds:on:logger:consume:)`` is executing.
struct NamedStatement: PostgresPreparedStatement {
    struct Definition: Sendable {
        var name: String
        var sql: String
    }

    /// Set only around `PostgresConnection.execute`.
    @TaskLocal static var current = Definition(name: "", sql: "")

    static var name: String {
        // An empty name would make postgres-nio cache the unnamed statement, which the next query replaces.
        precondition(!current.name.isEmpty, "NamedStatement executed outside NamedStatements.run")
        return current.name
    }
    static var sql: String { current.sql }

    package typealias Row = PostgresRow

    let bindings: PostgresBindings

    func makeBindings() throws -> PostgresBindings { bindings }

    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}
