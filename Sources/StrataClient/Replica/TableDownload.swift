import Foundation
import StrataCore

/// One table's download while it arrives: the file the connection writes it to, how much of that
/// file has gone into the database, and the staging table the rows go into.
///
/// The rows go into `strata.download.<table>.<id>`, a table of the new shape that no query reads,
/// in a transaction per few megabytes while the rest is still arriving; once the whole answer is
/// in, one transaction makes the staging table the table (``ReplicaDatabase/adopt(_:foreignKeys:in:)``).
/// Until then the app sees the table as it was, and a crash leaves a staging table that the next
/// open drops. Used by the one actor that owns the replica, one call at a time.
final class TableDownload {
    let name: String
    let document: URL
    let staging: SQLiteIdentifier
    /// Bytes of the document read into the staging table so far.
    var consumed: Int64 = 0
    var reader = CompactTableReader()
    /// The table's fields as the answer gives them, once its header was read.
    var fields: [DataTableField]?
    /// Inserts a row into the staging table, once it exists.
    var insert: SQLiteStatement?
    private var handle: FileHandle?
    private var opened = false

    static let stagingPrefix = "strata.download."

    init(name: String, document: URL) {
        self.name = name
        self.document = document
        staging = SQLiteIdentifier(Self.stagingPrefix + name + "." + UUID().uuidString.prefix(8).lowercased())
    }

    /// The next bytes of the document, at most `limit`; empty at its end.
    func read(upTo limit: Int) throws(ReplicaError) -> Data {
        do {
            if !opened {
                // Progress is reported for any answer, but only a success is written to the file:
                // without the file there is nothing to read yet (an error's body is in memory).
                guard FileManager.default.fileExists(atPath: document.path) else { return Data() }
                handle = try FileHandle(forReadingFrom: document)
                opened = true
            }
            let chunk = try handle?.read(upToCount: limit) ?? Data()
            consumed += Int64(chunk.count)
            return chunk
        } catch {
            throw ReplicaError(.storage, "could not read the download of \(name) at \(document.path): \(error.localizedDescription)")
        }
    }

    /// Closes the file (it is removed by whoever made it) and finalizes the insert statement, which
    /// must not outlive the staging table. (After the connection closed this is still safe: it
    /// closes with `sqlite3_close_v2`, which waits for its statements.)
    func close() {
        try? handle?.close()
        handle = nil
        insert?.finalize()
        insert = nil
    }

    deinit { close() }
}
