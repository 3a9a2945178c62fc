import StrataCore
import StrataSQL
import StrataStorage

/// Loads `$expand`ed entities for a chunk of parent rows: one statement per expanded navigation
/// property and level, whatever the number of parents — never one per parent row.
///
/// What one load may read is bounded: at most `maxRows` related rows in all (each statement asks
/// for no more than the rest), past which it throws ``TooManyRows`` having held no more than that.
/// Each parent comes back with the number of entities its tree places inline
/// (``EntityRow/inlineCount``), for the caller to bound what one response writes.
struct ExpansionLoader: Sendable {
    let storage: ServiceStorage
    /// The most related rows one load reads (``StrataConfiguration/maxExpandedEntities``).
    var maxRows = Int.max

    /// The related table's alias in each statement, which the plan's conditions and order name.
    static let alias = "e0"

    /// Values per statement; well under PostgreSQL's 65,535 parameters.
    static let batchSize = 10_000

    /// The parents' expansions hold more related rows than ``maxRows``.
    struct TooManyRows: Error {}

    func load(_ rows: [EntityRow], _ plans: [ExpansionPlan]) async throws -> [EntityRow] {
        var budget = maxRows
        return try await load(rows, plans, budget: &budget)
    }

    private func load(_ rows: [EntityRow], _ plans: [ExpansionPlan], budget: inout Int) async throws -> [EntityRow] {
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
            var related = try await fetch(plan, keys: wanted, budget: &budget)
            related = try await load(related, plan.children, budget: &budget)
            var byKey: [[ODataValue]: [EntityRow]] = [:]
            for child in related {
                byKey[plan.childPositions.map { child.values[$0] }, default: []].append(child)
            }
            for index in rows.indices {
                var children = joinKey(rows[index]).flatMap { byKey[$0] } ?? []
                if plan.perParent.count { rows[index].expandedCounts[plan.navigation.name] = children.count }
                // V4's $skip and $top per parent, on related entities already filtered and in order.
                children = plan.perParent.slice(children)
                if plan.navigation.multiplicity != .many { children = Array(children.prefix(1)) }
                rows[index].expanded[plan.navigation.name] = plan.navigation.multiplicity == .many
                    ? .collection(children) : .single(children.first)
                for child in children { rows[index].inlineCount = Self.add(rows[index].inlineCount, Self.add(1, child.inlineCount)) }
            }
        }
        return rows
    }

    /// Sums of inline counts, which a hostile `$expand` can make grow exponentially: capped.
    static func add(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? Int.max : sum
    }

    private func fetch(_ plan: ExpansionPlan, keys: [[ODataValue]], budget: inout Int) async throws -> [EntityRow] {
        guard !keys.isEmpty else { return [] }
        var rows: [EntityRow] = []
        var start = 0
        while start < keys.count {
            let batch = keys[start..<min(start + Self.batchSize, keys.count)]
            start += batch.count
            var select = query(plan, keys: batch)
            // One row past the budget tells that it is exceeded without reading the rest.
            if budget < Int.max { select.limit = budget + 1 }
            let statement = SQLRenderer.render(select, dialect: storage.database.dialect)
            let result = try await storage.database.scan { connection in
                try await connection.query(statement, types: plan.columns.map(\.type))
            }
            guard result.rows.count <= budget else { throw TooManyRows() }
            budget -= result.rows.count
            rows += result.rows.map { EntityRow(values: $0) }
        }
        return rows
    }

    private func query(_ plan: ExpansionPlan, keys: ArraySlice<[ODataValue]>) -> SelectQuery {
        let alias = Self.alias
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
        if let condition = plan.condition { query.filter(condition) }
        // The expansion's own order first (V4's nested $orderby), then the key: each parent's related
        // entities keep this order when they are grouped, which $skip and $top per parent rely on.
        query.orderBy = plan.order + plan.type.keyProperties.map {
            OrderTerm(expression: .column(alias: alias, name: storage.column($0.name, of: plan.type)), descending: false, canBeNull: $0.isNullable)
        }
        return query
    }
}
