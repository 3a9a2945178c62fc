import ArgumentParser
import Foundation
import StrataClient
import StrataCore

struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Keep a local replica of tables in a directory, in sync with a server both ways.",
        discussion: """
            The directory holds the replica (StrataClient's Replica): the rows, the delta tokens and the \
            local changes not yet sent. The first run downloads the tables; later runs send local \
            changes and receive what changed since. Signed in as `strata login` left it.

              strata sync ./people --service cardealer --tables Person,Car
              strata sync ./people --service cardealer --tables Person --where "Person=lastName ne 'Test'"
              strata sync ./people --service cardealer --tables Person --live        (follow until Ctrl-C)
              strata sync ./people --service cardealer --tables Person --offline \\
                  --add 'Person={"firstName":"Ada","lastName":"Lovelace"}' --set 'Person(4)={"firstName":"Bo"}'
              strata sync ./people --service cardealer --tables Person --offline --show Person
              strata sync ./people --service cardealer --tables Person,Car --offline \
                  --sql "SELECT lastName, count(*) FROM Person GROUP BY lastName ORDER BY 2 DESC LIMIT 5"

            --add, --set and --remove edit the replica before syncing (with --offline, without \
            syncing): the change is on disk when the command moves on, and sent once however the \
            sync is interrupted. Keys are written as in OData: Person(4), PersonCar(personID=1,carID=2).

            The replica is an SQLite database (replica.sqlite in the directory) whose tables are the \
            replicated ones under their own names, local changes included. --sql runs one read-only \
            statement over them at the end (after the sync; with --offline, on the local copy as it is).
            """)

    @Argument(help: "The replica's directory (created when missing).")
    var directory: String

    @Option(help: ArgumentHelp("The server. (env: STRATA_SERVER, default: the server the replica was made against, else the server last signed in to, else \(DefaultServer.local))"))
    var server: String?

    @Option(help: "The service whose tables are kept.")
    var service: String

    @Option(help: "The tables to keep, separated by commas (masters before details).")
    var tables: String

    @Option(name: .customLong("where"), help: "Table=FILTER: keep only the rows of Table that pass an OData $filter. Repeatable.")
    var filters: [String] = []

    @Option(help: "How conflicts are settled: serverWins, clientWins, mergeFields (default) or ask.")
    var conflicts: String = ConflictPolicy.mergeFields.rawValue

    @Option(help: "Table={json}: insert a row locally. Repeatable.")
    var add: [String] = []

    @Option(help: "Table(key)={json}: change fields of a row locally. Repeatable.")
    var set: [String] = []

    @Option(help: "Table(key): delete a row locally. Repeatable.")
    var remove: [String] = []

    @Flag(help: "Do not contact the server: only make the edits and print the state.")
    var offline = false

    @Flag(help: "After syncing, follow the server's changes live until interrupted.")
    var live = false

    @Option(help: "Print the replica's rows of this table at the end.")
    var show: String?

    @Option(help: "Run a read-only SQL query (SQLite's dialect) over the replica's tables at the end and print its rows.")
    var sql: String?

    func run() async throws {
        let replicaDirectory = URL(fileURLWithPath: directory)
        let serverURL = try DefaultServer.url(DefaultServer.text(option: server, remembered: DefaultServer.replicaServer(replicaDirectory)))
        guard let policy = ConflictPolicy(rawValue: conflicts) else {
            throw CLIError("--conflicts takes \(ConflictPolicy.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let definition = try tableDefinitions(policy: policy)
        let session = try await Credentials.session(for: serverURL)
        let connection = Connection(baseURL: serverURL, configuration: ConnectionConfiguration(authenticator: session))
        let adapter = RemoteDataAdapter(connection: connection, service: service)
        let replica: Replica
        do {
            replica = try await Replica.open(at: replicaDirectory, adapter: adapter, tables: definition)
        } catch {
            throw CLIError(error.message)
        }
        do {
            try DefaultServer.bind(replica: replicaDirectory, to: serverURL)
        } catch {
            await replica.close()
            throw error
        }
        try await edit(replica)
        if !offline { try await synchronize(replica) }
        if let show { try await self.show(table: show, of: replica) }
        if let sql { try await query(sql, on: replica) }
        let status = await replica.syncStatus
        print("pending \(status.pendingCount) local change\(status.pendingCount == 1 ? "" : "s")"
              + (status.waitingConflicts > 0 ? ", \(status.waitingConflicts) conflict(s) waiting" : ""))
        if live && !offline { try await follow(replica) }
        await replica.close()
    }

    private func tableDefinitions(policy: ConflictPolicy) throws -> [ReplicaTable] {
        let names = tables.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !names.isEmpty else { throw CLIError("--tables names at least one table") }
        var where_: [String: String] = [:]
        for item in filters {
            guard let equals = item.firstIndex(of: "=") else { throw CLIError("--where takes Table=FILTER, not \(item)") }
            let table = String(item[..<equals]), filter = String(item[item.index(after: equals)...])
            guard names.contains(table) else { throw CLIError("--where names \(table), which is not in --tables") }
            where_[table] = filter
        }
        return names.map { ReplicaTable($0, where: where_[$0], conflicts: policy) }
    }

    // MARK: Edits

    private func edit(_ replica: Replica) async throws {
        do {
            for item in add {
                let (table, _, values) = try Self.parseEdit(item, needsKey: false, needsValues: true)
                let fields = try await replica.fields(table)
                let inserted = try await replica.insert(into: table, try Self.values(values!, fields: fields))
                print("added \(table) \(Self.describe(inserted))")
            }
            for item in set {
                let (table, key, values) = try Self.parseEdit(item, needsKey: true, needsValues: true)
                let fields = try await replica.fields(table)
                let rowKey = try Self.key(key!, fields: fields, table: table)
                try await replica.update(table, key: rowKey, try Self.values(values!, fields: fields))
                print("changed \(table) \(Self.describe(rowKey))")
            }
            for item in remove {
                let (table, key, _) = try Self.parseEdit(item, needsKey: true, needsValues: false)
                let fields = try await replica.fields(table)
                let rowKey = try Self.key(key!, fields: fields, table: table)
                try await replica.delete(from: table, key: rowKey)
                print("deleted \(table) \(Self.describe(rowKey))")
            }
        } catch let error as ReplicaError {
            throw CLIError(error.message)
        }
    }

    /// `Table(key)={json}` into its parts (a composite key's `=` is inside the parentheses).
    static func parseEdit(_ text: String, needsKey: Bool, needsValues: Bool) throws -> (String, String?, String?) {
        var head = Substring(text), json: String?
        if needsValues {
            guard let split = text.range(of: "={") else {
                throw CLIError("write the values as \(needsKey ? "Table(key)" : "Table")={\"field\":value}, not \(text)")
            }
            head = text[..<split.lowerBound]
            json = String(text[text.index(after: split.lowerBound)...])
        }
        var key: String?
        if let open = head.firstIndex(of: "("), head.last == ")" {
            key = String(head[head.index(after: open) ..< head.index(before: head.endIndex)])
            head = head[..<open]
        }
        if needsKey, key == nil { throw CLIError("name the row as Table(key), for example Person(4), not \(text)") }
        if !needsKey, key != nil { throw CLIError("an insert names the table only; put the key in the values: \(text)") }
        return (String(head), key, json)
    }

    static func values(_ json: String, fields: [DataTableField]) throws -> DataTableValues {
        guard case .object(let object) = try JSONValue.parse(Array(json.utf8)) else { throw CLIError("the values must be a JSON object: \(json)") }
        var values: DataTableValues = [:]
        for (name, item) in object {
            guard let field = fields.first(where: { $0.name == name }) else {
                throw CLIError("no field \(name); the fields are \(fields.map(\.name).joined(separator: ", "))")
            }
            do {
                values[name] = try ODataJSON.decode(item, as: field.type)
            } catch {
                throw CLIError("\(name): \(error.message)")
            }
        }
        return values
    }

    /// `4`, or `personID=1,carID=2`, as key values.
    static func key(_ text: String, fields: [DataTableField], table: String) throws -> DataTableValues {
        let keyFields = fields.filter(\.key)
        guard !keyFields.isEmpty else { throw CLIError("\(table) has not been downloaded yet; sync once first") }
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        var key: DataTableValues = [:]
        for (index, part) in parts.enumerated() {
            let (name, literal): (String, String)
            if let equals = part.firstIndex(of: "=") {
                (name, literal) = (String(part[..<equals]), String(part[part.index(after: equals)...]))
            } else {
                guard parts.count == 1, keyFields.count == 1 else { throw CLIError("name each key field of \(table): \(keyFields.map(\.name))") }
                (name, literal) = (keyFields[index].name, part)
            }
            guard let field = keyFields.first(where: { $0.name == name }) else { throw CLIError("\(name) is not a key field of \(table)") }
            do {
                let value = try ODataLiteral.parse(literal)
                guard let typed = value.converted(to: field.type) else { throw CLIError("\(name) takes \(field.type.rawValue), not \(literal)") }
                key[name] = typed
            } catch let error as ODataLiteralError {
                throw CLIError("\(name): \(error.message)")
            }
        }
        return key
    }

    static func describe(_ values: DataTableValues) -> String {
        "(" + values.keys.sorted().map { "\($0)=\(values[$0]!)" }.joined(separator: ",") + ")"
    }

    // MARK: Syncing

    private func synchronize(_ replica: Replica) async throws {
        let started = ContinuousClock.now
        // Progress of whole-table downloads, at most twice a second.
        let events = await replica.events()
        let progress = Task {
            var last = ContinuousClock.now
            for await event in events {
                guard case .status(let status) = event, let download = status.download,
                      ContinuousClock.now - last >= .milliseconds(500) else { continue }
                last = .now
                let megabytes = Double(download.receivedBytes) / 1_048_576
                print("downloading \(download.table): \(String(format: "%.1f", megabytes)) MB"
                      + (download.expectedBytes.map { " of \(String(format: "%.1f", Double($0) / 1_048_576)) MB" } ?? ""))
            }
        }
        defer { progress.cancel() }
        let report: SyncReport
        do {
            report = try await replica.sync()
        } catch {
            throw CLIError("sync failed: \(error.message)")
        }
        for name in report.reloaded {
            let count = try await replica.count(name)
            print("downloaded \(name): \(count) row\(count == 1 ? "" : "s")")
        }
        var line = "sent \(report.sent) change\(report.sent == 1 ? "" : "s")"
        if report.sent > 0 { line += " (\(report.applied) applied, \(report.failed) refused\(report.replayed ? ", answered from the server's receipts" : ""))" }
        line += ", received \(report.received) row\(report.received == 1 ? "" : "s"), removed \(report.removed)"
        line += ", in \(started.duration(to: .now).formatted(.units(allowed: [.seconds, .milliseconds], width: .narrow)))"
        print(line)
        for conflict in report.conflicts {
            print("conflict on \(conflict.table) \(Self.describe(conflict.key)): \(conflict.outcome)")
        }
    }

    private func follow(_ replica: Replica) async throws {
        let events = await replica.events()
        await replica.startLive()
        print("following live changes (Ctrl-C to stop)")
        for await event in events {
            switch event {
            case .changed(let change) where change.origin == .live:
                for (table, keys) in change.rows.sorted(by: { $0.key < $1.key }) {
                    print("\(table): \(keys.map { "\($0.count) row\($0.count == 1 ? "" : "s")" } ?? "all rows") changed")
                }
            case .status(let status):
                if let error = status.lastError { print("offline: \(error)") }
            default:
                continue
            }
        }
    }

    private func query(_ sql: String, on replica: Replica) async throws {
        let result: ReplicaQueryResult
        do {
            result = try await replica.query(sql)
        } catch {
            throw CLIError(error.message)
        }
        let formatter = TableFormatter(maximumWidth: 48)
        print(formatter.render(columns: result.columns, rows: result.rows.map { row in row.map(TableFormatter.display) }), terminator: "")
        print("\(result.rows.count) row\(result.rows.count == 1 ? "" : "s")")
    }

    private func show(table: String, of replica: Replica) async throws {
        let rows: [ReplicaRow]
        do {
            rows = try await replica.rows(table)
        } catch {
            throw CLIError(error.message)
        }
        var fields = rows.first?.fields ?? []
        if fields.isEmpty { fields = try await replica.fields(table) }
        let formatter = TableFormatter(maximumWidth: 48)
        print(formatter.render(columns: fields.map(\.name), rows: rows.map { row in row.values.map(TableFormatter.display) }), terminator: "")
    }
}
