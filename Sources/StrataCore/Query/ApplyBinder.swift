/// Binds the transformations of `$apply`, in order, on an entity type: names and types are checked
/// against the model (which already leaves out the columns the caller may not read, so a hidden or
/// role-restricted column is unknown here, as in `$filter`), aliases against each other, and every
/// expression after the aggregation against the aggregated result's columns.
struct ApplyBinder {
    let model: ServiceModel
    let root: EntityType

    /// Aliases of `compute` before the aggregation, replaced by their expressions wherever used.
    private var entityNames = ComputedNames()
    private var filters: [BoundExpression] = []
    /// Nil until `groupby` or `aggregate`.
    private var columns: [ApplyColumn]?
    private var isGrouped = false
    private var resultNames = ComputedNames(knownOnly: true)
    /// The result's columns as properties, by their written names, for the binder.
    private var resultType: EntityType?
    private var internalNames: [String: String] = [:]
    private var stages: [ApplyStage] = []
    private var earlierLevels: [AggregationLevel] = []
    /// Columns are numbered across all aggregations, so that every level's names differ.
    private var nextColumn = 0

    init(model: ServiceModel, root: EntityType) {
        self.model = model
        self.root = root
    }

    static func notImplemented(_ what: String) -> ODataError {
        ODataError(status: 501, code: "NotImplemented", message: "$apply: \(what); \(ApplyParser.supported)")
    }

    mutating func add(_ transformation: ApplyTransformation) throws(ODataError) {
        switch transformation {
        case .identity:
            break
        case .filter(let expression):
            try addFilter(expression, option: "$apply")
        case .compute(let items):
            for item in items { try addCompute(item) }
        case .orderBy(let items):
            try addOrderBy(items, option: "$apply")
        case .top(let count):
            try addLimit(option: "$apply", "top") { stage in stage.top = Swift.min(stage.top ?? count, count) }
        case .skip(let count):
            try addLimit(option: "$apply", "skip") { stage in
                stage.skip += count
                stage.top = stage.top.map { Swift.max(0, $0 - count) }
            }
        case .aggregate(let items):
            try aggregate(groupedBy: nil, items)
        case .groupBy(let paths, let items):
            try aggregate(groupedBy: paths, items)
        }
    }

    /// `$filter` and `$orderby`, which apply to what `$apply` produced.
    mutating func addSystemOptions(filter: QueryExpression?, orderBy: [OrderByItem]) throws(ODataError) {
        if let filter { try addFilter(filter, option: "$filter") }
        if !orderBy.isEmpty { try addOrderBy(orderBy, option: "$orderby") }
    }

    func result() throws(ODataError) -> BoundApply {
        guard let columns else {
            throw Self.notImplemented("a $apply without groupby or aggregate is not supported; filter, order and page entities with $filter, $orderby, $top and $skip, and compute with $compute")
        }
        return BoundApply(filters: filters, columns: columns, isGrouped: isGrouped, stages: stages, earlierLevels: earlierLevels)
    }

    /// `$select` on the result: positions of the columns it names (a path, or its first segments:
    /// `PersonCar` selects `PersonCar/Car/make`); nil for all (`*` or no `$select`).
    func written(_ select: [SelectItem], in columns: [ApplyColumn]) throws(ODataError) -> [Int]? {
        guard !select.isEmpty, !select.contains(where: { $0.isWildcard && $0.path.segments.isEmpty }) else { return nil }
        var positions: [Int] = []
        for item in select {
            let matching = columns.indices.filter { columns[$0].path.starts(with: item.path.segments) }
            guard !item.isWildcard, !matching.isEmpty else {
                throw .badRequest("$select: \(QuerySyntaxError.quoted(item.description)) is not a property of the aggregated result; it has "
                                  + columns.map(\.name).joined(separator: ", "))
            }
            positions += matching.filter { !positions.contains($0) }
        }
        return positions.sorted()
    }

    // MARK: Before the aggregation

    private func bindOnEntity(_ expression: QueryExpression, option: String) throws(ODataError) -> BoundExpression {
        try ExpressionBinder(model: model, root: root, option: option).bind(entityNames.resolve(expression, option: option))
    }

    private func checkNewName(_ alias: String, option: String) throws(ODataError) {
        let taken = columns.map { columns in columns.map { $0.path[0] } } ?? (root.properties.map(\.name) + root.navigationProperties.map(\.name))
        guard !taken.contains(alias), entityNames.expressions[alias] == nil, resultNames.expressions[alias] == nil else {
            throw .badRequest("\(option): the alias \(QuerySyntaxError.quoted(alias)) is already a property's name; choose another")
        }
    }

    // MARK: Transformations

    private mutating func addFilter(_ expression: QueryExpression, option: String) throws(ODataError) {
        let bound = try columns == nil ? bindOnEntity(expression, option: option) : bindOnResult(expression, option: option)
        guard bound.type == .boolean else {
            throw .badRequest("\(option): a filter must be Edm.Boolean, but \(expression.text) is \(bound.type?.qualifiedName ?? "an untyped null")")
        }
        guard columns != nil else {
            filters.append(bound)
            return
        }
        if stages.last?.limits ?? true { stages.append(ApplyStage()) }
        stages[stages.count - 1].filters.append(bound)
    }

    private mutating func addCompute(_ item: ComputeItem) throws(ODataError) {
        try checkNewName(item.alias, option: "$apply")
        guard columns != nil else {
            _ = try bindOnEntity(item.expression, option: "$apply")
            entityNames.expressions[item.alias] = item.expression
            return
        }
        let bound = try bindOnResult(item.expression, option: "$apply")
        resultNames.expressions[item.alias] = item.expression
        resultNames.available.append(item.alias)
        let internalName = newInternalName()
        columns!.append(ApplyColumn(path: [item.alias], type: bound.type, property: nil, source: .computed(bound), internalName: internalName))
    }

    private mutating func addOrderBy(_ items: [OrderByItem], option: String) throws(ODataError) {
        guard columns != nil else {
            throw Self.notImplemented("orderby before groupby or aggregate is not supported; order the aggregated rows")
        }
        var bound: [BoundOrderByItem] = []
        for item in items {
            let expression = try bindOnResult(item.expression, option: option)
            guard expression.type != nil else {
                throw .badRequest("\(option): \(item.expression.text) is an untyped null, which cannot sort anything")
            }
            bound.append(BoundOrderByItem(expression: expression, direction: item.direction))
        }
        if stages.last?.limits ?? true { stages.append(ApplyStage()) }
        // A later order sorts first; the earlier one still breaks its ties.
        stages[stages.count - 1].orderBy = bound + stages[stages.count - 1].orderBy
    }

    private mutating func addLimit(option: String, _ name: String, _ change: (inout ApplyStage) -> Void) throws(ODataError) {
        guard columns != nil else {
            throw Self.notImplemented("\(name) before groupby or aggregate is not supported; page the aggregated rows")
        }
        if stages.isEmpty { stages.append(ApplyStage()) }
        change(&stages[stages.count - 1])
    }

    // MARK: The aggregation

    private mutating func newInternalName() -> String {
        defer { nextColumn += 1 }
        return "c\(nextColumn)"
    }

    private mutating func aggregate(groupedBy paths: [PropertyPath]?, _ items: [AggregateItem]) throws(ODataError) {
        var result: [ApplyColumn] = []
        let binder = ExpressionBinder(model: model, root: root, option: "$apply")
        for path in paths ?? [] {
            guard !result.contains(where: { $0.path == path.segments }) else {
                throw .badRequest("$apply: groupby names \(path) twice")
            }
            let internalName = newInternalName()
            if let previous = columns {
                // Grouping aggregated rows again: by their columns.
                let bound = try bindOnResult(.property(path), option: "$apply")
                let column = previous.first { $0.path == path.segments }
                result.append(ApplyColumn(path: path.segments, type: bound.type, property: column?.property, source: .group(bound), internalName: internalName))
                continue
            }
            if path.segments.count == 1, entityNames.expressions[path.segments[0]] != nil {
                let bound = try bindOnEntity(.property(path), option: "$apply")
                guard bound.type != nil else {
                    throw .badRequest("$apply: \(path) is an untyped null, which cannot be grouped by")
                }
                result.append(ApplyColumn(path: path.segments, type: bound.type, property: nil, source: .group(bound), internalName: internalName))
                continue
            }
            let resolved = try binder.resolve(path)
            let bound = BoundExpression(type: resolved.property.type, node: .property(resolved))
            result.append(ApplyColumn(path: path.segments, type: resolved.property.type, property: resolved.property,
                                      source: .group(bound), internalName: internalName))
        }
        let grouped = result.map { $0.path[0] }
        var aliases: Set<String> = []
        for item in items {
            guard !grouped.contains(item.alias), aliases.insert(item.alias).inserted else {
                throw .badRequest("$apply: the alias \(QuerySyntaxError.quoted(item.alias)) is used twice in the result; choose another")
            }
            let internalName = newInternalName()
            switch item.operand {
            case .count:
                result.append(ApplyColumn(path: [item.alias], type: .int64, property: nil, source: .count, internalName: internalName))
            case .value(let expression, let method):
                let bound = try columns == nil ? bindOnEntity(expression, option: "$apply") : bindOnResult(expression, option: "$apply")
                let type = try Self.resultType(method, bound.type, written: expression.text)
                result.append(ApplyColumn(path: [item.alias], type: type, property: nil, source: .aggregate(method, bound), internalName: internalName))
            }
        }
        if let previous = columns {
            earlierLevels.append(AggregationLevel(columns: previous, isGrouped: isGrouped, stages: stages))
        }
        columns = result
        isGrouped = paths != nil
        stages = []
        // What the earlier result was called is gone; only the new columns (and later aliases) exist.
        resultNames = ComputedNames(knownOnly: true)
        internalNames = [:]
        var properties: [EntityProperty] = []
        for column in result {
            resultNames.renamed[column.path] = column.name
            resultNames.available.append(column.name)
            internalNames[column.name] = column.internalName
            properties.append(EntityProperty(name: column.name, type: column.type ?? .string))
        }
        resultType = EntityType(name: root.name + "Aggregated", namespace: root.namespace, properties: properties, keyNames: [])
    }

    /// The type of an aggregate: a sum of integers is an Edm.Int64, an average of them an
    /// Edm.Double, counts are Edm.Int64, min and max keep the operand's type.
    static func resultType(_ method: AggregationMethod, _ operand: EDMPrimitiveType?, written: String) throws(ODataError) -> EDMPrimitiveType {
        guard let operand else {
            throw .badRequest("$apply: \(written) is an untyped null, which cannot be aggregated")
        }
        switch method {
        case .countdistinct:
            return .int64
        case .sum, .average:
            guard operand.isNumeric else {
                throw .badRequest("$apply: \(method.rawValue) needs a numeric operand, but \(written) is \(operand.qualifiedName); min, max and countdistinct take any orderable value")
            }
            if operand == .decimal { return .decimal }
            return method == .sum && operand.isIntegral ? .int64 : .double
        case .min, .max:
            guard ![.boolean, .guid, .binary].contains(operand) else {
                throw .badRequest("$apply: \(method.rawValue) cannot order \(operand.qualifiedName) values, as in \(written); use countdistinct")
            }
            return operand
        }
    }

    // MARK: After the aggregation

    private func bindOnResult(_ expression: QueryExpression, option: String) throws(ODataError) -> BoundExpression {
        guard let resultType else { throw .internalError() }
        let resolved = try resultNames.resolve(expression, option: option)
        return try ExpressionBinder(model: model, root: resultType, option: option).bind(resolved).renamingProperties(internalNames)
    }
}
