import StrataCore
import StrataSQL
import StrataOData
import StrataStorage

/// The current rows of a window's changed keys in one table, read once for every subscriber: the
/// full row, and one match column per distinct condition of the shapes that follow the table
/// (`CASE WHEN <condition> THEN 1 ELSE 0 END`), so that 1,000 subscribers with 100 different
/// filters cost one statement per table and window, not one per subscriber. Conditions are the
/// planner's own translations (``RowFilterSQL``), so the stream agrees with ordinary reads.
struct FeedRows: Sendable {
    let storage: ServiceStorage
    let set: EntitySet
    let type: EntityType
    let conditions: [(key: String, term: SQLTerm)]

    /// A changed key of a table.
    struct TableKey: Hashable {
        var table: String
        var key: [ODataValue]
    }

    package struct Row: Sendable {
        /// The full row, one value per property of the full model's type.
        var values: [ODataValue]
        /// Per condition (in ``FeedRows/conditions`` order), whether the row passes it.
        var matches: [Bool]

        /// The values of `properties`, by name, in their order.
        func pick(_ properties: [String], of type: EntityType) -> [ODataValue] {
            properties.map { name in type.properties.firstIndex { $0.name == name }.map { values[$0] } ?? .null }
        }
    }

    /// A logged key in key-property order, converted to the properties' types.
    static func key(of change: LoggedChange, type: EntityType, storage: ServiceStorage) -> [ODataValue] {
        type.keyProperties.map { property in
            let value = change.key[storage.column(property.name, of: type)] ?? .null
            return value.converted(to: property.type) ?? value
        }
    }

    /// The distinct keys of `table` among `changes`.
    static func keys(of changes: [LoggedChange], table: String, type: EntityType, storage: ServiceStorage) -> [[ODataValue]] {
        var seen = Set<[ODataValue]>()
        var keys: [[ODataValue]] = []
        for change in changes where change.table == table {
            let key = key(of: change, type: type, storage: storage)
            if seen.insert(key).inserted { keys.append(key) }
        }
        return keys
    }

    /// The rows of `keys` that exist, by key.
    func read(_ keys: [[ODataValue]], _ connection: any DatabaseConnection) async throws -> [[ODataValue]: Row] {
        let path = ResolvedPath(steps: [ResolvedPath.Step(set: set, type: type, via: nil, key: nil)], terminal: .entities)
        var base = PathPlanner(storage: storage).plan(path, columns: type.properties)
        for (index, condition) in conditions.enumerated() {
            base.items.append(SelectColumn(expression: .template(["CASE WHEN ", .expression(condition.term), " THEN 1 ELSE 0 END"]),
                                           alias: "m\(index)"))
        }
        let types = type.properties.map(\.type) + conditions.map { _ in EDMPrimitiveType.int32 }
        let width = type.properties.count
        let keyPositions = type.keyProperties.map { key in type.properties.firstIndex { $0.name == key.name }! }
        let columns = type.keyProperties.map { storage.column($0.name, of: type) }
        var rows: [[ODataValue]: Row] = [:]
        var start = 0
        while start < keys.count {
            let chunk = keys[start ..< min(keys.count, start + DeltaReader.keysPerStatement)]
            start += chunk.count
            var query = base
            query.filter(DeltaReader.condition(chunk, columns: columns))
            let result = try await connection.query(SQLRenderer.render(query, dialect: connection.dialect), types: types)
            for row in result.rows {
                let values = Array(row[..<width])
                rows[keyPositions.map { values[$0] }] = Row(values: values, matches: row[width...].map { $0.integerValue == 1 })
            }
        }
        return rows
    }
}
