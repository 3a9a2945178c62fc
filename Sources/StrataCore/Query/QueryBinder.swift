/// Checks query options against a service model and produces their bound form (``BoundQuery``).
///
/// Everything a client can get wrong is found here, before any SQL exists, and reported as a 400 that
/// names the option and the problem: `$filter: Property 'firstname' does not exist on type
/// edmexampleModel.Person`, `$filter: cannot compare Edm.String with Edm.Int32 in firstName eq 5`.
///
/// The binder recurses once per level of the expression tree; the parser's ``QueryLimits`` bound that
/// depth for anything that came from a URL.
package struct QueryBinder: Sendable {
    /// The model names and types are checked against.
    package var model: ServiceModel
    /// The grammar the options were parsed in (V4 mixes date-time literals, see ``ExpressionBinder``).
    package var version: ODataVersion

    package init(model: ServiceModel, version: ODataVersion = .v2) {
        self.model = model
        self.version = version.isV4 ? .v4 : .v2
    }

    /// Binds all options for requests on `entityType` (an entity set's type, or a navigation's target),
    /// with the meaning ``version`` gives them.
    package func bind(_ options: QueryOptions, to entityType: EntityType) throws(ODataError) -> BoundQuery {
        if !options.apply.isEmpty { return try bindApply(options, to: entityType) }
        if !options.compute.isEmpty { return try bindComputed(options, to: entityType) }
        return BoundQuery(
            entityType: entityType,
            filter: try options.filter.map { (e) throws(ODataError) in try bindFilter(e, on: entityType) },
            orderBy: try bindOrderBy(options.orderBy, on: entityType),
            top: options.top,
            skip: options.skip,
            projection: try bindProjection(select: options.select, expand: options.expand, expandOptions: options.expandOptions,
                                           version: version, on: entityType),
            inlineCount: options.inlineCount,
            skipToken: options.skipToken,
            format: options.format,
            customOptions: options.customOptions)
    }

    /// Binds a `$filter`, which must be Boolean.
    package func bindFilter(_ expression: QueryExpression, on entityType: EntityType) throws(ODataError) -> BoundExpression {
        let binder = ExpressionBinder(model: model, root: entityType, option: "$filter", version: version)
        let bound = try binder.bind(expression)
        guard bound.type == .boolean else {
            let actual = bound.type?.qualifiedName ?? "an untyped null"
            throw .badRequest("$filter: the expression must be Edm.Boolean, but \(expression.text) is \(actual)")
        }
        return bound
    }

    /// Binds `$orderby` keys, which must be primitive values.
    package func bindOrderBy(_ items: [OrderByItem], on entityType: EntityType) throws(ODataError) -> [BoundOrderByItem] {
        let binder = ExpressionBinder(model: model, root: entityType, option: "$orderby", version: version)
        var bound: [BoundOrderByItem] = []
        for item in items {
            let expression = try binder.bind(item.expression)
            guard expression.type != nil else {
                throw .badRequest("$orderby: \(item.expression.text) is an untyped null, which cannot sort anything")
            }
            bound.append(BoundOrderByItem(expression: expression, direction: item.direction))
        }
        return bound
    }

    /// Resolves `$select` and `$expand` into the projection tree.
    ///
    /// In V4 an expanded navigation property is returned whether or not `$select` names it (V2
    /// returns it only when `$select` does, or selects everything), and the options of an expanded
    /// path (``ExpandOptions``) apply to that level alone — its `$select` narrows only it.
    package func bindProjection(select: [SelectItem], expand: [PropertyPath], expandOptions: [PropertyPath: ExpandOptions] = [:],
                                version: ODataVersion = .v2, on entityType: EntityType) throws(ODataError) -> BoundProjection {
        var binder = ProjectionBinder(model: model, root: entityType)
        for path in expand { try binder.expand(path) }
        for item in select { try binder.select(item) }
        // Shallow paths first, so that a level's options are in place before deeper ones are looked up.
        for (path, options) in expandOptions.sorted(by: { $0.key.segments.count < $1.key.segments.count }) {
            try binder.apply(options, at: path, binder: self)
        }
        return binder.projection(selectIsActive: !select.isEmpty, expansionsAlwaysWritten: version.isV4)
    }
}

extension QueryBinder {
    /// `Property 'x' does not exist on type T`, with a suggestion when only the case differs.
    static func unknownProperty(_ name: String, on type: EntityType, option: String) -> ODataError {
        var message = "\(option): Property \(QuerySyntaxError.quoted(name)) does not exist on type \(type.qualifiedName)"
        let names = type.properties.map(\.name) + type.navigationProperties.map(\.name)
        if let near = names.first(where: { $0.lowercased() == name.lowercased() }) {
            message += "; did you mean '\(near)'?"
        }
        return .badRequest(message)
    }

    /// Follows a navigation property to its entity set and type; a model that names a missing set is a
    /// server bug, not bad input.
    static func target(of navigation: NavigationProperty, in model: ServiceModel) throws(ODataError) -> (EntitySet, EntityType) {
        guard let set = model.entitySet(named: navigation.targetSet),
              let type = model.entityType(named: set.entityTypeName) else {
            throw .internalError("The model's navigation property \(navigation.name) leads to the unknown entity set \(navigation.targetSet).")
        }
        return (set, type)
    }
}
