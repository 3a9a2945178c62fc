import StrataCore

// The journal's JSON form of mutations: how replicas were stored before the local database. Read
// once to convert such a directory (``ReplicaLegacyConversion``); written by the tests that make
// one. The pending-change form is the outbox's too (``ReplicaDatabase``).

extension ReplicaMutation {
    func write(to writer: inout JSONWriter, state: ReplicaJournalState) {
        writer.beginObject()
        switch self {
        case .putPending(let pending):
            writer.key("m"); writer.string("put")
            Self.write(pending, to: &writer)
        case .dropPending(let id):
            writer.key("m"); writer.string("drop")
            writer.key("id"); writer.string(String(id))
        case .seal(let key, let ids):
            writer.key("m"); writer.string("seal")
            writer.key("key"); writer.string(key)
            writer.key("ids"); writer.beginArray(); for id in ids { writer.string(String(id)) }; writer.endArray()
        case .unseal:
            writer.key("m"); writer.string("unseal")
        case .upsert(let table, let rows):
            writer.key("m"); writer.string("upsert")
            writer.key("table"); writer.string(table)
            writer.key("rows"); Self.write(rows, to: &writer)
        case .delete(let table, let keys):
            writer.key("m"); writer.string("delete")
            writer.key("table"); writer.string(table)
            writer.key("keys"); Self.write(keys, to: &writer)
        case .replace(let table, let fields, let rows, let token):
            writer.key("m"); writer.string("replace")
            writer.key("table")
            CompactTable(name: table, fields: fields, rows: rows).write(to: &writer)
            writer.key("token"); if let token { writer.string(token) } else { writer.null() }
        case .token(let table, let token):
            writer.key("m"); writer.string("token")
            writer.key("table"); writer.string(table)
            writer.key("token"); if let token { writer.string(token) } else { writer.null() }
        case .foreignKeys(let table, let columns):
            writer.key("m"); writer.string("foreignKeys")
            writer.key("table"); writer.string(table)
            writer.key("columns"); writer.beginArray()
            for list in columns { writer.beginArray(); for name in list { writer.string(name) }; writer.endArray() }
            writer.endArray()
        case .forget(let table):
            writer.key("m"); writer.string("forget")
            writer.key("table"); writer.string(table)
        case .counters(let change, let temporary):
            writer.key("m"); writer.string("counters")
            writer.key("change"); writer.string(String(change))
            writer.key("temporary"); writer.string(String(temporary))
        }
        writer.endObject()
    }

    /// Reads a mutation written by ``write(to:state:)``; values are read with the fields `state`
    /// has for their table at this point of the journal.
    static func read(_ json: JSONValue, state: ReplicaJournalState) throws(DataTableFormatError) -> ReplicaMutation {
        guard let kind = json["m"]?.stringValue else { throw DataTableFormatError("a journal entry has no kind") }
        switch kind {
        case "put": return .putPending(try readPending(json, state: state))
        case "drop": return .dropPending(try id(json["id"]))
        case "seal":
            guard let key = json["key"]?.stringValue, case .array(let ids)? = json["ids"] else { throw DataTableFormatError("a seal entry is incomplete") }
            var list: [UInt64] = []
            for item in ids { list.append(try id(item)) }
            return .seal(key: key, ids: list)
        case "unseal": return .unseal
        case "upsert", "delete":
            guard let table = json["table"]?.stringValue, let fields = state.tables[table]?.fields, !fields.isEmpty else {
                throw DataTableFormatError("a journal entry names a table that has no fields")
            }
            if kind == "upsert" { return .upsert(table: table, rows: try readRows(json["rows"], fields: fields)) }
            return .delete(table: table, keys: try readRows(json["keys"], fields: fields.filter(\.key)))
        case "replace":
            guard let tableJSON = json["table"] else { throw DataTableFormatError("a replace entry has no table") }
            let table = try CompactTable(json: tableJSON, at: "replace")
            return .replace(table: table.name, fields: table.fields, rows: table.rows, token: json["token"]?.stringValue)
        case "token":
            guard let table = json["table"]?.stringValue else { throw DataTableFormatError("a token entry has no table") }
            return .token(table: table, json["token"]?.stringValue)
        case "foreignKeys":
            guard let table = json["table"]?.stringValue, case .array(let lists)? = json["columns"] else {
                throw DataTableFormatError("a foreignKeys entry is incomplete")
            }
            return .foreignKeys(table: table, columns: lists.map { list in
                guard case .array(let names) = list else { return [] }
                return names.compactMap(\.stringValue)
            })
        case "forget":
            guard let table = json["table"]?.stringValue else { throw DataTableFormatError("a forget entry has no table") }
            return .forget(table: table)
        case "counters":
            guard let change = json["change"]?.stringValue.flatMap(UInt64.init),
                  let temporary = json["temporary"]?.stringValue.flatMap(Int64.init) else { throw DataTableFormatError("a counters entry is incomplete") }
            return .counters(nextChange: change, nextTemporaryKey: temporary)
        default:
            throw DataTableFormatError("a journal entry of unknown kind '\(kind.prefix(20))'")
        }
    }

    // MARK: Parts

    static func write(_ pending: PendingChange, to writer: inout JSONWriter) {
        writer.key("id"); writer.string(String(pending.id))
        writer.key("change"); pending.change.write(to: &writer)
        if let error = pending.error { writer.key("error"); writer.string(error) }
        if let conflict = pending.conflict {
            writer.key("serverRow")
            if let values = conflict.values { DataTableValuesFormat.write(values, to: &writer) } else { writer.null() }
        }
    }

    static func readPending(_ json: JSONValue, state: ReplicaJournalState) throws(DataTableFormatError) -> PendingChange {
        try readPending(json) { table in
            state.tables[table].map { Dictionary($0.fields.map { ($0.name, $0.type) }, uniquingKeysWith: { first, _ in first }) }
        }
    }

    /// A pending change written by ``write(_:to:)``, its values read with its table's field types.
    static func readPending(_ json: JSONValue, types: (String) -> [String: EDMPrimitiveType]?) throws(DataTableFormatError) -> PendingChange {
        let id = try id(json["id"])
        guard let changeJSON = json["change"] else { throw DataTableFormatError("a pending change has no change") }
        let change = try DataTableChange(json: changeJSON, at: "pending \(id)", fieldTypes: types)
        var pending = PendingChange(id: id, change: change, error: json["error"]?.stringValue)
        if let server = json["serverRow"] {
            let fields = types(change.table) ?? [:]
            pending.conflict = .init(values: server.isNull ? nil : try DataTableValuesFormat.read(server, at: "pending \(id).serverRow") { fields[$0] })
        }
        return pending
    }

    static func write(_ rows: [[ODataValue]], to writer: inout JSONWriter) {
        writer.beginArray()
        for row in rows {
            writer.beginArray()
            for value in row { ODataJSON.write(value, to: &writer) }
            writer.endArray()
        }
        writer.endArray()
    }

    static func readRows(_ json: JSONValue?, fields: [DataTableField]) throws(DataTableFormatError) -> [[ODataValue]] {
        guard case .array(let items)? = json else { throw DataTableFormatError("rows must be an array") }
        var rows: [[ODataValue]] = []
        rows.reserveCapacity(items.count)
        for item in items {
            guard case .array(let cells) = item, cells.count == fields.count else { throw DataTableFormatError("a row has the wrong number of values") }
            var row: [ODataValue] = []
            row.reserveCapacity(cells.count)
            for (cell, field) in zip(cells, fields) {
                do { row.append(try ODataJSON.decode(cell, as: field.type)) } catch { throw DataTableFormatError("\(field.name): \(error.message)") }
            }
            rows.append(row)
        }
        return rows
    }

    private static func id(_ json: JSONValue?) throws(DataTableFormatError) -> UInt64 {
        guard let text = json?.stringValue, let id = UInt64(text) else { throw DataTableFormatError("a journal entry has no change id") }
        return id
    }
}
