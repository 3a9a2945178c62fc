import Foundation
import StrataCore

extension ReplicaDatabase {
    /// Replaces a table with a downloaded `$tables` answer on disk (`document`), reading it in
    /// chunks as its rows go in, so that a table of a million rows never sits in memory: one
    /// transaction, like every step, so a crash or a bad document leaves the table as it was.
    /// Answers the number of rows read.
    ///
    /// - Throws: ``ReplicaError/Kind/sync`` when the document is not the table with its token,
    ///   ``ReplicaError/Kind/storage`` when the database cannot take it (a full disk).
    func replace(_ name: String, document: URL, foreignKeys: [[String]], in state: inout ReplicaState) throws(ReplicaError) -> Int {
        guard let definition = state.tables[name]?.definition else { return 0 }
        let file: FileHandle
        do {
            file = try FileHandle(forReadingFrom: document)
        } catch {
            throw ReplicaError(.storage, "could not read the download of \(name) at \(document.path): \(error.localizedDescription)")
        }
        defer { try? file.close() }
        var next = state
        let savedStatements = statements
        let rows: Int
        do {
            rows = try connection.transaction({ () throws(ReplicaError) -> Int in
                var reader = CompactTableReader()
                var insert: SQLiteStatement?
                while true {
                    let chunk: Data
                    do {
                        chunk = try file.read(upToCount: Self.downloadChunk) ?? Data()
                    } catch {
                        throw ReplicaError(.storage, "could not read the download of \(name) at \(document.path): \(error.localizedDescription)")
                    }
                    if chunk.isEmpty { break }
                    let events: [CompactTableReader.Event]
                    do throws(DataTableFormatError) {
                        events = try reader.read(chunk)
                    } catch {
                        throw ReplicaError(.sync, "the server's answer for \(name) is not a data table: \(error.message)")
                    }
                    for event in events {
                        switch event {
                        case .table(let answered, let fields):
                            guard answered == name, insert == nil else {
                                throw ReplicaError(.sync, "the server answered the table \(answered) for \(name)")
                            }
                            try Self.check(indexes: definition, fields: fields)
                            insert = try sqlite { () throws(SQLiteError) in try beginReplace(name, fields: fields, in: &next) }
                        case .rows(let rows):
                            guard let insert else { continue }
                            try sqlite { () throws(SQLiteError) in
                                for row in rows {
                                    insert.reset()
                                    try insert.bind(row)
                                    try insert.run()
                                }
                            }
                        case .deleted, .endTable:
                            continue
                        }
                    }
                }
                do throws(DataTableFormatError) {
                    try reader.finish()
                } catch {
                    throw ReplicaError(.sync, "the server's answer for \(name) is not a data table: \(error.message)")
                }
                guard insert != nil, let token = reader.token else {
                    throw ReplicaError(.sync, "the server answered no rows or no token for \(name)")
                }
                try sqlite { () throws(SQLiteError) in
                    try endReplace(name, token: token, in: &next)
                    if let table = next.tables[name] { try createForeignKeyIndexes(table, foreignKeys) }
                }
                return reader.rowCount
            }, failure: { (error: SQLiteError) -> ReplicaError in self.replicaError(error) })
        } catch {
            statements = savedStatements
            throw error
        }
        state = next
        return rows
    }

    /// A new file for a download, in the replica's directory: on the database's disk, removed once
    /// read, and at the next open when a crash left it (``removeDownloads(in:)``).
    func downloadFile() -> URL {
        URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(Self.downloadPrefix + UUID().uuidString + ".part")
    }

    /// Removes the downloads a killed process left in the directory: a whole one being read
    /// (`download-….part`), or one still arriving — the connection's hidden file beside it
    /// (`.download-….part.….download`, see DownloadFile).
    static func removeDownloads(in directory: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names where isDownload(name) {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
    }

    /// Whether a file name in a replica's directory is a download's (see ``removeDownloads(in:)``).
    static func isDownload(_ name: String) -> Bool {
        (name.hasPrefix(downloadPrefix) && name.hasSuffix(".part"))
            || (name.hasPrefix("." + downloadPrefix) && name.hasSuffix(".download"))
    }

    static let downloadPrefix = "download-"

    /// How much of a download is read at a time: a few thousand rows.
    static let downloadChunk = 256 * 1024

    private func sqlite<T>(_ body: () throws(SQLiteError) -> T) throws(ReplicaError) -> T {
        do {
            return try body()
        } catch {
            throw replicaError(error)
        }
    }
}
