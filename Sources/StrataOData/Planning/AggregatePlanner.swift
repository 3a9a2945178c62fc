import StrataCore
import StrataSQL
import StrataStorage

/// Plans a read with `$apply` (``BoundApply``) as one statement: the entities of the path, narrowed
/// by the caller's row filters on every table it reads (joined ones in their join conditions, as in
/// ``ReadPlanner``) and by the filters before the aggregation, grouped and aggregated in SQL; then one
/// level per stage that filters, orders and cuts the groups. Columns are named `c0`, `c1`, … and the
/// levels `q1`, `q2`, …: no name in the SQL comes from the request.
struct AggregatePlanner {
    let service: ODataService
    let access: ReadAccess

    private var storage: ServiceStorage { service.storage }
    private var dialect: SQLDialect { service.dialect }

    func plan(_ path: ResolvedPath, _ apply: BoundApply) throws -> AggregatePlan {
        let last = AggregationLevel(columns: apply.columns, isGrouped: apply.isGrouped, stages: apply.stages)
        let levels = apply.earlierLevels + [last]
        let inner = try grouped(path, apply)
        var source: SQL = "\(inner)"
        for (index, level) in levels.enumerated() {
            if index > 0 { source = regrouped(level, from: source, alias: "r\(index)") }
            let plan = stages(of: level, from: source, prefix: "q\(index + 1)_")
            guard index == levels.count - 1 else {
                // An earlier aggregation's rows, with their own skip and top, feed the next one.
                source = plan.statement(skip: 0, limit: nil)
                continue
            }
            return plan
        }
        throw ODataError.internalError()
    }

    /// The levels of one aggregation's stages over `source`, which yields its columns (not the
    /// computed ones): every stage but the last wrapped in its own SELECT, the last one left open for
    /// the page's offset and limit.
    private func stages(of level: AggregationLevel, from source: SQL, prefix: String) -> AggregatePlan {
        var levels = source
        let base = level.columns.filter { if case .computed = $0.source { return false } else { return true } }
        let stages = level.stages.isEmpty ? [ApplyStage()] : level.stages
        for (index, stage) in stages.enumerated() {
            let alias = prefix + String(index + 1)
            let translator = FilterTranslator(dialect: dialect, names: storage.names, rootAlias: alias, rootType: "$apply")
            let passed = base.map { column -> SQL in "\(SQLTerm.column(alias: alias, name: column.internalName))" }
            var order = stage.orderBy.map { translator.sortKey($0.expression, descending: $0.direction == .descending).orderTerm }
            // Groups have no key: ordering by every grouping column as well makes pages stable.
            order += base.compactMap { column -> OrderTerm? in
                guard case .group = column.source else { return nil }
                return translator.sortKey(Self.reference(column), descending: false).orderTerm
            }
            let conditions = stage.filters.map { translator.condition($0) }
            guard index == stages.count - 1 else {
                let named = passed.enumerated().map { index, term -> SQL in "\(term) AS \(identifier: base[index].internalName)" }
                var wrapped: SQL = "SELECT \(SQL.joined(named)) FROM (\(levels)) AS \(identifier: alias)"
                if !conditions.isEmpty { wrapped += " WHERE \(SQLTerm.and(conditions))" }
                wrapped += AggregatePlan.orderBy(order)
                wrapped += AggregatePlan.limit(stage.top, offset: stage.skip)
                levels = wrapped
                continue
            }
            // The last level also computes what `compute` added after the aggregation.
            let items = level.columns.map { column -> SQL in
                if case .computed(let expression) = column.source {
                    return "\(translator.scalar(expression, as: expression.type)) AS \(identifier: column.internalName)"
                }
                return "\(SQLTerm.column(alias: alias, name: column.internalName)) AS \(identifier: column.internalName)"
            }
            return AggregatePlan(columns: level.columns, levels: levels,
                                 outer: .init(items: items, alias: alias, conditions: conditions, order: order),
                                 stageSkip: stage.skip, stageTop: stage.top)
        }
        return AggregatePlan(columns: level.columns, levels: levels, outer: .init(items: [], alias: prefix, conditions: [], order: []),
                             stageSkip: 0, stageTop: nil)
    }

    /// A later aggregation: the rows of the one before, grouped and aggregated again.
    private func regrouped(_ level: AggregationLevel, from source: SQL, alias: String) -> SQL {
        let translator = FilterTranslator(dialect: dialect, names: storage.names, rootAlias: alias, rootType: "$apply")
        var items: [SQL] = []
        var grouped: [SQL] = []
        for column in level.columns {
            let term: SQLTerm
            switch column.source {
            case .computed:
                continue
            case .group(let expression):
                term = translator.scalar(expression, as: expression.type)
                grouped.append("\(items.count + 1)")
            case .count:
                term = .template(["COUNT(*)"])
            case .aggregate(let method, let expression):
                term = aggregate(method, translator.scalar(expression, as: expression.type), operand: expression.type, result: column.type)
            }
            items.append("\(term) AS \(identifier: column.internalName)")
        }
        var sql: SQL = "SELECT \(SQL.joined(items)) FROM (\(source)) AS \(identifier: alias)"
        if !grouped.isEmpty { sql += " GROUP BY \(SQL.joined(grouped))" }
        return sql
    }

    /// A column of an aggregated result as an expression of the level that reads it.
    private static func reference(_ column: ApplyColumn) -> BoundExpression {
        let property = EntityProperty(name: column.internalName, type: column.type ?? .string)
        return BoundExpression(type: column.type, node: .property(BoundPropertyPath(navigation: [], property: property)))
    }

    /// The innermost SELECT: the entities, filtered, grouped and aggregated.
    private func grouped(_ path: ResolvedPath, _ apply: BoundApply) throws -> SelectQuery {
        let target = path.target
        var query = PathPlanner(storage: storage).plan(path, columns: [])
        try ReadPlanner(service: service, access: access).restrictPath(path, &query)
        let joined = JoinBuilder(storage: storage, aliasPrefix: "n")
            .joins(from: PathPlanner.targetAlias, of: target.type, chains: apply.navigationJoins)
        for (index, table) in joined.tables.enumerated() {
            var join = joined.joins[index]
            // A joined row the caller may not see reads as missing, as in every other read.
            if let filter = try access.rowFilter(table.set.name) {
                join.on = .and([join.on, RowFilterSQL(storage: storage).condition(filter, alias: table.alias, set: table.set, type: table.type)])
            }
            query.joins.append(join)
        }
        let translator = FilterTranslator(dialect: dialect, names: storage.names, rootAlias: PathPlanner.targetAlias, rootType: target.type.name,
                                          joinAliases: joined.aliases, dateForms: storage.dateForms)
        for filter in apply.filters { query.filter(translator.condition(filter)) }
        var items: [SelectColumn] = []
        for column in apply.entityColumns {
            let term: SQLTerm
            switch column.source {
            case .computed:
                continue
            case .group(let expression):
                term = groupTerm(expression, translator: translator, joinAliases: joined.aliases, root: target.set.name)
                // The grouping columns come first (the binder orders them so): GROUP BY 1, 2, ….
                query.groupedItems += 1
            case .count:
                term = .template(["COUNT(*)"])
            case .aggregate(let method, let expression):
                term = aggregate(method, translator.scalar(expression, as: expression.type), operand: expression.type, result: column.type)
            }
            items.append(SelectColumn(expression: term, alias: column.internalName))
        }
        query.items = items
        return query
    }

    /// A grouping column reads as any SELECT reads it (a date in its stored form converted).
    private func groupTerm(_ expression: BoundExpression, translator: FilterTranslator, joinAliases: [[String]: String], root: String) -> SQLTerm {
        guard case .property(let path) = expression.node else { return translator.scalar(expression, as: expression.type) }
        let alias = path.navigation.isEmpty ? PathPlanner.targetAlias : (joinAliases[path.navigationNames] ?? PathPlanner.targetAlias)
        let table = path.navigation.last?.targetSet.name ?? root
        return storage.selected(alias: alias, table: table, column: path.property.name)
    }

    /// The SQL of an aggregation method, with the result type the binder gave it on both databases.
    private func aggregate(_ method: AggregationMethod, _ operand: SQLTerm, operand type: EDMPrimitiveType?, result: EDMPrimitiveType?) -> SQLTerm {
        switch method {
        case .sum:
            // PostgreSQL sums bigints as numeric; the result is an Edm.Int64.
            if dialect == .postgres, result == .int64 { return .template(["CAST(SUM(", .expression(operand), ") AS bigint)"]) }
            if dialect == .postgres, result == .double { return .template(["CAST(SUM(", .expression(operand), ") AS double precision)"]) }
            return .template(["SUM(", .expression(operand), ")"])
        case .average:
            if dialect == .postgres, result == .double { return .template(["CAST(AVG(", .expression(operand), ") AS double precision)"]) }
            return .template(["AVG(", .expression(operand), ")"])
        case .min, .max:
            // Strings compare byte by byte, as in $filter and $orderby.
            let value = type == .string && dialect == .postgres ? SQLTerm.template(["(", .expression(operand), " COLLATE \"C\")"]) : operand
            return method == .min ? .template(["MIN(", .expression(value), ")"]) : .template(["MAX(", .expression(value), ")"])
        case .countdistinct:
            return .template(["COUNT(DISTINCT ", .expression(operand), ")"])
        }
    }
}
