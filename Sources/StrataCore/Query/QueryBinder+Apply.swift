extension QueryBinder {
    /// Binds a read with `$apply`: its transformations, then `$filter` and `$orderby` on what they
    /// produced. With an aggregation, `$select` picks among the result's properties; `$expand` and `$compute` are refused: the result's properties are
    /// what `groupby`, `aggregate` and `compute` name.
    func bindApply(_ options: QueryOptions, to entityType: EntityType) throws(ODataError) -> BoundQuery {
        if let entities = try Self.entityOptions(options) { return try bind(entities, to: entityType) }
        let refused = [("$expand", !options.expand.isEmpty), ("$compute", !options.compute.isEmpty)]
        if let (name, _) = refused.first(where: { $0.1 }) {
            throw .badRequest("\(name) cannot be combined with $apply in Strata; the result has the properties groupby, aggregate and compute name")
        }
        var binder = ApplyBinder(model: model, root: entityType)
        for transformation in options.apply { try binder.add(transformation) }
        try binder.addSystemOptions(filter: options.filter, orderBy: options.orderBy)
        var apply = try binder.result()
        apply.written = try binder.written(options.select, in: apply.columns)
        return BoundQuery(entityType: entityType, top: options.top, skip: options.skip, projection: .all(of: entityType),
                          inlineCount: options.inlineCount, skipToken: options.skipToken, format: options.format,
                          customOptions: options.customOptions, apply: apply)
    }

    /// A `$apply` that only filters and computes (`filter`, `compute`, `identity`) keeps the entities:
    /// it is the same read as `$filter` and `$compute`, and is answered as one. Nil when `$apply`
    /// aggregates or orders.
    private static func entityOptions(_ options: QueryOptions) throws(ODataError) -> QueryOptions? {
        var filters: [QueryExpression] = []
        var computed: [ComputeItem] = []
        for transformation in options.apply {
            switch transformation {
            case .identity: break
            case .filter(let expression): filters.append(expression)
            case .compute(let items): computed += items
            default: return nil
            }
        }
        guard options.compute.isEmpty else {
            throw .badRequest("$compute cannot be combined with $apply in Strata; compute in $apply with compute(…)")
        }
        var entities = options
        entities.apply = []
        entities.compute = computed
        if let filter = options.filter { filters.append(filter) }
        entities.filter = filters.dropFirst().reduce(filters.first) { all, next in all.map { .binary(.and, $0, next) } }
        return entities
    }
}
