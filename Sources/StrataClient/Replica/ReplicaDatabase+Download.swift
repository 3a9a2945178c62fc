import Foundation
import StrataCore

extension ReplicaDatabase {
    /// Replaces a table with a downloaded `$tables` answer on disk (`document`) in one transaction:
    /// ``adopt(_:foreignKeys:in:)`` of a download read whole. Answers the number of rows read.
    func replace(_ name: String, document: URL, foreignKeys: [[String]], in state: inout ReplicaState) throws(ReplicaError) -> Int {
        let download = TableDownload(name: name, document: document)
        defer { download.close() }
        return try adopt(download, foreignKeys: foreignKeys, in: &state)
    }

    /// Reads the download's file into its staging table as far as `available` bytes (whole rows;
    /// a row cut by the end waits for the next call), in one transaction, while the rest of the
    /// answer is still arriving. The app's table stays as it was.
    ///
    /// Committed without waiting for the disk (`synchronous=NORMAL`, which in WAL mode still keeps
    /// the database consistent through a power cut): the staging table is of use only once the
    /// last transaction, with the usual fsync, makes it the table — a crash before that drops it anyway.
    ///
    /// - Throws: ``ReplicaError/Kind/sync`` when the answer is not the table, ``ReplicaError/Kind/storage``
    ///   when the database cannot take it (a full disk). The download cannot go on after an error.
    func stage(_ download: TableDownload, upTo available: Int64, state: ReplicaState) throws(ReplicaError) {
        try sqlite { () throws(SQLiteError) in try connection.execute("PRAGMA synchronous=NORMAL") }
        defer { try? connection.execute("PRAGMA synchronous=FULL") }
        try connection.transaction({ () throws(ReplicaError) -> Void in
            try read(download, upTo: available, state: state)
        }, failure: { (error: SQLiteError) -> ReplicaError in self.replicaError(error) })
    }

    /// The rest of the download's file, then, in the same transaction, the staging table becomes
    /// the table: its declared and foreign-key indexes are built, its token and fields stored, and
    /// its rows with local changes keep them (the server's version goes aside). A failure leaves
    /// the table as it was. Answers the number of rows read.
    ///
    /// - Throws: ``ReplicaError/Kind/sync`` when the answer is not the table with its token,
    ///   ``ReplicaError/Kind/storage`` when the database cannot take it (a full disk).
    func adopt(_ download: TableDownload, foreignKeys: [[String]], in state: inout ReplicaState) throws(ReplicaError) -> Int {
        var next = state
        let savedStatements = statements
        do {
            try connection.transaction({ () throws(ReplicaError) -> Void in
                try read(download, upTo: .max, state: next)
                download.close()
                do throws(DataTableFormatError) {
                    try download.reader.finish()
                } catch {
                    throw ReplicaError(.sync, "the server's answer for \(download.name) is not a data table: \(error.message)")
                }
                guard let fields = download.fields, let token = download.reader.token else {
                    throw ReplicaError(.sync, "the server answered no rows or no token for \(download.name)")
                }
                try sqlite { () throws(SQLiteError) in
                    guard var table = next.tables[download.name] else { return }
                    table.setFields(fields)
                    next.tables[download.name] = table
                    let sql = ReplicaTableSQL(table)
                    statements[download.name] = sql
                    try connection.execute(ReplicaTableSQL.drop(download.name))
                    try connection.execute("ALTER TABLE \(download.staging) RENAME TO \(SQLiteIdentifier(download.name))")
                    try connection.execute("CREATE TABLE \(Self.serverTable(download.name)) \(sql.body)")
                    try endReplace(download.name, token: token, in: &next)
                    if let table = next.tables[download.name] { try createForeignKeyIndexes(table, foreignKeys) }
                }
            }, failure: { (error: SQLiteError) -> ReplicaError in self.replicaError(error) })
        } catch {
            statements = savedStatements
            discard(download)
            throw error
        }
        state = next
        return download.reader.rowCount
    }

    /// Drops a download's staging table (a download that failed or is no longer wanted).
    func discard(_ download: TableDownload) {
        download.close()
        try? connection.execute("DROP TABLE IF EXISTS \(download.staging)")
    }

    /// Drops the staging tables of downloads a killed process left.
    func dropStagingTables() throws(ReplicaError) {
        try sqlite { () throws(SQLiteError) in
            for name in try Self.stagingTables(in: connection) {
                try connection.execute("DROP TABLE IF EXISTS \(SQLiteIdentifier(name))")
            }
        }
    }

    /// The names of the download staging tables in the database.
    static func stagingTables(in connection: SQLiteConnection) throws(SQLiteError) -> [String] {
        let tables = try connection.prepared("SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, ?) = ?")
        try tables.bind(Int64(TableDownload.stagingPrefix.utf8.count), at: 1)
        try tables.bind(TableDownload.stagingPrefix, at: 2)
        var names: [String] = []
        while try tables.step() { if let name = tables.text(0) { names.append(name) } }
        tables.reset()
        return names
    }

    /// Reads the file from where the download stopped to `available` bytes, inserting its rows
    /// into the staging table (made when the table's header is read), inside the caller's transaction.
    private func read(_ download: TableDownload, upTo available: Int64, state: ReplicaState) throws(ReplicaError) {
        guard let definition = state.tables[download.name]?.definition else {
            throw ReplicaError(.sync, "the replica no longer keeps \(download.name)")
        }
        while download.consumed < available {
            let chunk = try download.read(upTo: Int(min(Int64(Self.downloadChunk), available - download.consumed)))
            if chunk.isEmpty { break }
            let events: [CompactTableReader.Event]
            do throws(DataTableFormatError) {
                events = try download.reader.read(chunk)
            } catch {
                throw ReplicaError(.sync, "the server's answer for \(download.name) is not a data table: \(error.message)")
            }
            for event in events {
                switch event {
                case .table(let answered, let fields):
                    guard answered == download.name, download.fields == nil, var table = state.tables[download.name] else {
                        throw ReplicaError(.sync, "the server answered the table \(answered) for \(download.name)")
                    }
                    try Self.check(indexes: definition, fields: fields)
                    table.setFields(fields)
                    let sql = ReplicaTableSQL(table)
                    download.insert = try sqlite { () throws(SQLiteError) in
                        try connection.execute("CREATE TABLE \(download.staging) \(sql.body)")
                        // Prepared for this download alone (the staging table's name is its own) and
                        // finalized with it, not kept among the connection's statements.
                        return try connection.prepare("INSERT OR REPLACE INTO \(download.staging) \(sql.insertValues)", persistent: true)
                    }
                    download.fields = fields
                case .rows(let rows):
                    guard let insert = download.insert else { continue }
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
    }

    /// A new file for a download, in the replica's directory: on the database's disk, removed once
    /// read, and at the next open when a crash left it (``removeDownloads(in:)``).
    func downloadFile() -> URL {
        URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(Self.downloadPrefix + UUID().uuidString + ".part")
    }

    /// Removes the downloads a killed process left in the directory: `download-….part`, which the
    /// replica's download writes in place, and the hidden file of a download that replaces its
    /// destination at the end (`.download-….part.….download`, see DownloadFile; earlier versions).
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

    /// How much of a download is read at a time: some hundreds of rows, whose values are in memory
    /// at once (256 KiB read at a time added some megabytes to a million-row download's peak).
    static let downloadChunk = 64 * 1024

    private func sqlite<T>(_ body: () throws(SQLiteError) -> T) throws(ReplicaError) -> T {
        do {
            return try body()
        } catch {
            throw replicaError(error)
        }
    }
}
