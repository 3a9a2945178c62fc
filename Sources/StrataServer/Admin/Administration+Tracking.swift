import Foundation
import Logging
import StrataCore
import StrataOData
import StrataStorage

extension Administration {
    /// Switches change tracking of `service` on or off (`strata service track NAME [--tables A,B]
    /// [--off]`): edits the service's model file (`track: all`, or `track: true` on tables) and
    /// applies it as `strata service model NAME --apply` does, creating or dropping the triggers
    /// and the log now. `tables` are entity set or table names; nil means every table. Answers the
    /// database names of the tables tracked afterwards.
    public static func track(_ service: String, tables: [String]?, off: Bool, _ configuration: StrataConfiguration,
                             logger: Logger) async throws -> [String] {
        try await withModels(configuration, logger: logger) { store, system in
            let loaded = try await requireModel(service, store: store, system: system, configuration, logger: logger)
            var file = loaded.modelFile ?? ModelFile(path: ModelSource.storedPath(service))
            let named = try tables.map { try tableNames($0, in: loaded) }
            var tracked = loaded.trackedTables
            switch (named, off) {
            case (nil, false): tracked = Set(loaded.catalog.filter { !$0.isView }.map(\.name))
            case (nil, true): tracked = []
            case (let names?, false): tracked.formUnion(names)
            case (let names?, true): tracked.subtract(names)
            }
            let all = named == nil && !off
            file.trackAll = all ? .init(value: true, line: 0) : nil
            for index in file.tables.indices { file.tables[index].track = nil }
            if !all {
                for table in tracked.sorted() {
                    if let index = file.tables.firstIndex(where: { $0.table == table }) {
                        file.tables[index].track = .init(value: true, line: 0)
                    } else {
                        var entry = ModelFile.Table(table: table, line: 0)
                        entry.track = .init(value: true, line: 0)
                        file.tables.append(entry)
                    }
                }
            }
            var edited = loaded
            edited.modelFile = file
            let text = edited.modelFileText(service: service)
            let stored = try await storeModelFile(text, path: ModelSource.storedPath(service), to: service, store: store, system: system,
                                                  logger: logger)
            return stored.trackedTables.sorted()
        }
    }

    /// Database table names for names given on the command line (entity set or table names);
    /// a view or an unknown name is refused, naming it.
    private static func tableNames(_ names: [String], in loaded: ServiceLoader.Loaded) throws -> [String] {
        try names.map { name in
            let table = loaded.catalog.first { $0.name == name }
                ?? loaded.catalog.first { loaded.entitySet(of: $0)?.name == name }
            guard let table else {
                let known = loaded.catalog.filter { !$0.isView }.map(\.name).sorted()
                throw ODataError.badRequest("The service has no table '\(name)'. Tables: \(known.joined(separator: ", ")).")
            }
            if table.isView {
                throw ODataError.badRequest("'\(name)' is a view: only tables can be tracked (a view has no rows of its own for a trigger to see).")
            }
            return table.name
        }
    }
}
