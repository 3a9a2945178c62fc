import StrataCore
import StrataSQL
import StrataStorage

/// Which tables of a service have their changes captured, and what their triggers log
/// (docs/design/CHANGE-FEED.md §1), from the model file's `track` and the shaped catalog.
extension ServiceLoader.Loaded {
    /// The tracked tables, as the triggers need them: key columns (the primary key, or the key the
    /// model file declares) and link columns (this table's foreign-key columns, including
    /// relationships the model file declares). A table referenced by others needs nothing extra:
    /// its children's links carry its key.
    package var captureTables: [CaptureTable] {
        let file = modelFile
        let all = file?.trackAll?.value == true
        let marked = Set((file?.tables ?? []).filter { $0.track?.value == true }.map(\.table))
        var tables: [CaptureTable] = []
        for table in catalog where !table.isView && (all || marked.contains(table.name)) {
            let key = table.primaryKey.isEmpty ? (table.declaredKey ?? []) : table.primaryKey
            // `track: all` leaves out a table without a key: there is nothing to name its rows by.
            guard !key.isEmpty else { continue }
            var links: [String] = []
            for foreignKey in table.foreignKeys {
                for column in foreignKey.columns where !links.contains(column) { links.append(column) }
            }
            tables.append(CaptureTable(name: table.name, key: key, links: links))
        }
        return tables.sorted { $0.name < $1.name }
    }

    /// The database names of the tracked tables.
    package var trackedTables: Set<String> { Set(captureTables.map(\.name)) }

    /// The EDM types of the tracked tables' key and link columns, to decode the log.
    package var trackedColumnTypes: [String: [String: EDMPrimitiveType]] {
        var types: [String: [String: EDMPrimitiveType]] = [:]
        for tracked in captureTables {
            guard let table = catalog.first(where: { $0.name == tracked.name }) else { continue }
            for name in tracked.key + tracked.links {
                if let type = table.column(named: name)?.type { types[tracked.name, default: [:]][name] = type }
            }
        }
        return types
    }
}

extension ODataService {
    /// The database tables whose changes are captured; empty when the service is not tracked.
    package var trackedTables: Set<String> { storage.trackedTables }

    /// Whether the table behind an entity set is tracked.
    func isTracked(entitySet: String) -> Bool {
        storage.trackedTables.contains(storage.names.table(entitySet))
    }
}
