/// A `$compute` property, bound: its name and what it computes from the entity.
package struct BoundComputed: Sendable, Hashable {
    package var alias: String
    /// A typed expression (never an untyped null).
    package var expression: BoundExpression
}

extension QueryBinder {
    /// Binds a read with `$compute`: each computed property on the entity type, then `$filter`,
    /// `$orderby` and `$select`, where a computed property's name stands for its expression.
    func bindComputed(_ options: QueryOptions, to entityType: EntityType) throws(ODataError) -> BoundQuery {
        var names = ComputedNames()
        var computed: [BoundComputed] = []
        let binder = ExpressionBinder(model: model, root: entityType, option: "$compute")
        for item in options.compute {
            let taken = entityType.properties.map(\.name) + entityType.navigationProperties.map(\.name)
            guard !taken.contains(item.alias), names.expressions[item.alias] == nil else {
                throw .badRequest("$compute: the alias \(QuerySyntaxError.quoted(item.alias)) is already a property's name; choose another")
            }
            let bound = try binder.bind(names.resolve(item.expression, option: "$compute"))
            guard bound.type != nil else {
                throw .badRequest("$compute: \(item.expression.text) is an untyped null; a computed property needs a type")
            }
            names.expressions[item.alias] = item.expression
            computed.append(BoundComputed(alias: item.alias, expression: bound))
        }
        let filter = try options.filter.map { (e) throws(ODataError) in try bindFilter(names.resolve(e, option: "$filter"), on: entityType) }
        var orderBy: [OrderByItem] = []
        for item in options.orderBy { orderBy.append(OrderByItem(try names.resolve(item.expression, option: "$orderby"), item.direction)) }
        // `$select` may name computed properties; the rest is the entity's own projection.
        let isComputed = { (item: SelectItem) in !item.isWildcard && item.path.segments.count == 1 && names.expressions[item.path.segments[0]] != nil }
        var select = options.select.filter { !isComputed($0) }
        if !options.select.isEmpty {
            let chosen = Set(options.select.filter(isComputed).map { $0.path.segments[0] })
            let everything = options.select.contains { $0.isWildcard && $0.path.segments.isEmpty }
            if !everything { computed.removeAll { !chosen.contains($0.alias) } }
            // Only computed properties selected: the entity's key identifies each row.
            if select.isEmpty { select = entityType.keyNames.map { SelectItem(PropertyPath([$0])) } }
        }
        var bound = BoundQuery(
            entityType: entityType, filter: filter, orderBy: try bindOrderBy(orderBy, on: entityType),
            top: options.top, skip: options.skip,
            projection: try bindProjection(select: select, expand: options.expand, on: entityType),
            inlineCount: options.inlineCount, skipToken: options.skipToken, format: options.format, customOptions: options.customOptions)
        bound.computed = computed
        return bound
    }
}
