import StrataCore
import StrataSQL

/// Loads `$expand`ed entities for a chunk of parent rows: one statement per expanded navigation
/// property and level, whatever the number of parents — never one per parent row.
struct ExpansionLoader: Sendable {
    let storage: ServiceStorage

    /// Values per statement; well under PostgreSQL's 65,535 parameters.
    static let batchSize = 10_000

    func load(_ rows: [EntityRow], _ plans: [ExpansionPlan]) async throws -> [EntityRow] {
        guard !plans.isEmpty, !rows.isEmpty else { return rows }
        var rows = rows
        for plan in plans {
            let keyTypes = plan.childPositions.map { plan.columns[$0].type }
            // The parents' join values, converted to the related columns' types so that equal keys hash alike.
            func joinKey(_ row: EntityRow) -> [ODataValue]? {
                var key: [ODataValue] = []
                for (position, type) in zip(plan.parentPositions, keyTypes) {
                    let value = row.values[position]
                    guard !value.isNull, let converted = value.converted(to: type) else { return nil }
                    key.append(converted)
                }
                return key
            }
            var wanted: [[ODataValue]] = []
            var seen: Set<[ODataValue]> = []
            for row in rows {
                if let key = joinKey(row), seen.insert(key).inserted { wanted.append(key) }
            }
            var related = try await fetch(plan, keys: wanted)
            related = try await load(related, plan.children)
            var byKey: [[ODataValue]: [EntityRow]] = [:]
            for child in related {
                byKey[plan.childPositions.map { child.values[$0] }, default: []].append(child)
            }
            for index in rows.indices {
                let children = joinKey(rows[index]).flatMap { byKey[$0] } ?? []
                rows[index].expanded[plan.navigation.name] = plan.navigation.multiplicity == .many
                    ? .collection(children) : .single(children.first)
            }
        }
        return rows
    }

    private func fetch(_ plan: ExpansionPlan, keys: [[ODataValue]]) async throws -> [EntityRow] {
        guard !keys.isEmpty else { return [] }
        var rows: [EntityRow] = []
        var start = 0
        while start < keys.count {
            let batch = keys[start..<min(start + Self.batchSize, keys.count)]
            start += batch.count
            let statement = SQLRenderer.render(query(plan, keys: batch), dialect: storage.database.dialect)
            let result = try await storage.database.scan { connection in
                try await connection.query(statement, types: plan.columns.map(\.type))
            }
            rows += result.rows.map { EntityRow(values: $0) }
        }
        return rows
    }

    private func query(_ plan: ExpansionPlan, keys: ArraySlice<[ODataValue]>) -> SelectQuery {
        let alias = "e0"
        let table = plan.set.name
        var query = SelectQuery(items: plan.columns.map { SelectColumn(expression: storage.selected(alias: alias, table: table, column: $0.name), alias: nil) },
                                from: storage.table(table), alias: alias)
        let remote = plan.navigation.joinColumns.map(\.remote)
        if remote.count == 1, storage.dateForm(table: table, column: remote[0]) == nil {
            query.filter(.inList(.column(alias: alias, name: storage.column(remote[0], of: plan.type)), keys.map { .value($0[0]) }))
        } else {
            query.filter(.or(keys.map { key in
                .and(zip(remote, key).map { storage.equality(alias: alias, table: table, column: $0, value: $1) })
            }))
        }
        if let filter = plan.rowFilter {
            query.filter(RowFilterSQL(storage: storage).condition(filter, alias: alias, set: plan.set, type: plan.type))
        }
        query.orderBy = plan.type.keyProperties.map {
            OrderTerm(expression: .column(alias: alias, name: storage.column($0.name, of: plan.type)), descending: false, canBeNull: $0.isNullable)
        }
        return query
    }
}
