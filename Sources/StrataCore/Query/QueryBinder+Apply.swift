extension QueryBinder {
    /// Binds a read with `$apply`: its transformations, then `$filter` and `$orderby` on what they
    /// produced. `$select`, `$expand` and `$compute` are refused with it: the result's properties are
    /// what `groupby`, `aggregate` and `compute` name.
    func bindApply(_ options: QueryOptions, to entityType: EntityType) throws(ODataError) -> BoundQuery {
        let refused = [("$select", !options.select.isEmpty), ("$expand", !options.expand.isEmpty), ("$compute", !options.compute.isEmpty)]
        if let (name, _) = refused.first(where: { $0.1 }) {
            throw .badRequest("\(name) cannot be combined with $apply in Strata; the result has the properties groupby, aggregate and compute name")
        }
        var binder = ApplyBinder(model: model, root: entityType)
        for transformation in options.apply { try binder.add(transformation) }
        try binder.addSystemOptions(filter: options.filter, orderBy: options.orderBy)
        return BoundQuery(entityType: entityType, top: options.top, skip: options.skip, projection: .all(of: entityType),
                          inlineCount: options.inlineCount, skipToken: options.skipToken, format: options.format,
                          customOptions: options.customOptions, apply: try binder.result())
    }
}
