import StrataCore

/// A whole ``ReplicaJournalState`` as one JSON document, the payload of the replica's snapshot file:
///
/// ```json
/// {"version":1,"tables":[{"table":{compact table},"filter":"…","token":"…"}],
///  "pending":[{"id":"7","change":{…}}],"sealed":{"key":"…","ids":["7"]},"nextChange":"8","nextTemporaryKey":"-3"}
/// ```
///
/// Rows are the compact table form of `$tables`, so a snapshot reads as fast as a download.
enum ReplicaSnapshot {
    static let version = 1

    static func write(_ state: ReplicaJournalState) -> [UInt8] {
        var writer = JSONWriter(capacity: 1 << 16)
        writer.beginObject()
        writer.key("version"); writer.string(String(version))
        // Every table the replica keeps, downloaded or not: the journal after this snapshot was
        // written under exactly these definitions.
        writer.key("tables")
        writer.beginArray()
        for name in state.order {
            guard let table = state.tables[name] else { continue }
            writer.beginObject()
            writer.key("name"); writer.string(name)
            writer.key("filter"); if let filter = table.definition.filter { writer.string(filter) } else { writer.null() }
            writer.key("conflicts"); writer.string(table.definition.conflicts.rawValue)
            if table.isDownloaded {
                writer.key("table")
                CompactTable(name: name, fields: table.fields, rows: Array(table.server.values)).write(to: &writer)
                writer.key("token"); if let token = table.token { writer.string(token) } else { writer.null() }
            }
            writer.endObject()
        }
        writer.endArray()
        writer.key("pending")
        writer.beginArray()
        for change in state.pendingInOrder {
            writer.beginObject()
            ReplicaMutation.write(change, to: &writer)
            writer.endObject()
        }
        writer.endArray()
        if let sealed = state.sealed {
            writer.key("sealed")
            writer.beginObject()
            writer.key("key"); writer.string(sealed.key)
            writer.key("ids"); writer.beginArray(); for id in sealed.ids { writer.string(String(id)) }; writer.endArray()
            writer.endObject()
        }
        writer.key("nextChange"); writer.string(String(state.nextChange))
        writer.key("nextTemporaryKey"); writer.string(String(state.nextTemporaryKey))
        writer.endObject()
        return writer.bytes
    }

    /// The state a snapshot holds, with the table definitions it was written under (the journal
    /// after it replays against those; ``ReplicaJournalState/reconcile(with:)`` then applies the app's).
    static func read(_ bytes: [UInt8]) throws(DataTableFormatError) -> ReplicaJournalState {
        let json: JSONValue
        do { json = try JSONValue.parse(bytes) } catch { throw DataTableFormatError("the snapshot is not JSON: \(error)") }
        guard json["version"]?.stringValue == String(version) else { throw DataTableFormatError("the snapshot is of another version") }
        guard case .array(let tables)? = json["tables"] else { throw DataTableFormatError("the snapshot has no tables") }
        var definition: [ReplicaTable] = []
        for item in tables {
            guard let name = item["name"]?.stringValue else { throw DataTableFormatError("a snapshot table has no name") }
            definition.append(ReplicaTable(name, where: item["filter"]?.stringValue,
                                           conflicts: item["conflicts"]?.stringValue.flatMap(ConflictPolicy.init) ?? .mergeFields))
        }
        var state = ReplicaJournalState(definition: definition)
        for item in tables {
            guard let tableJSON = item["table"] else { continue }
            let table = try CompactTable(json: tableJSON, at: "snapshot table")
            state.apply(.replace(table: table.name, fields: table.fields, rows: table.rows, token: item["token"]?.stringValue))
        }
        if case .array(let pending)? = json["pending"] {
            for item in pending {
                let change = try ReplicaMutation.readPending(item, state: state)
                state.pending[change.id] = change
            }
        }
        if case .object? = json["sealed"], let key = json["sealed"]?["key"]?.stringValue, case .array(let ids)? = json["sealed"]?["ids"] {
            state.sealed = ReplicaJournalState.Sealed(key: key, ids: ids.compactMap { $0.stringValue.flatMap(UInt64.init) })
        }
        state.nextChange = json["nextChange"]?.stringValue.flatMap(UInt64.init) ?? 1
        state.nextTemporaryKey = json["nextTemporaryKey"]?.stringValue.flatMap(Int64.init) ?? -1
        state.rebuild()
        return state
    }
}
