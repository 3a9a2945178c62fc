import StrataCore

/// A read's query options, parsed and checked against the model and against what the addressed
/// resource and the client's protocol version allow.
package enum ReadQuery {
    package static func bind(_ call: ODataCall, _ path: ResolvedPath) throws(ODataError) -> BoundQuery {
        let type = optionsType(call, path)
        // No options: nothing to parse, check or refuse.
        if call.url.rawQuery.isEmpty, let plain = call.service.plainQueries[type.qualifiedName] { return plain }
        let limits = call.settings.queryLimits
        var options = try QueryOptions(parsing: call.url.rawQuery, limits: limits, version: call.version)
        if call.version == .v1 {
            let needsTwo = [("$select", !options.select.isEmpty), ("$inlinecount", options.inlineCount != nil),
                            ("$skiptoken", options.skipToken != nil)].first { $0.1 }
            if let (name, _) = needsTwo {
                throw .badRequest("\(name) needs OData 2.0, but the request allows at most 1.0 (MaxDataServiceVersion); send MaxDataServiceVersion: 2.0.")
            }
        }
        let target = path.target
        var readsEntities = false
        if case .entities = path.terminal { readsEntities = target.isCollection }
        if !options.apply.isEmpty || !options.compute.isEmpty, !readsEntities {
            throw .badRequest("\(options.apply.isEmpty ? "$compute" : "$apply") can only be applied to a collection of entities.")
        }
        switch path.terminal {
        case .entities where !target.isCollection:
            try refuse(options, [("$orderby", !options.orderBy.isEmpty), ("$top", options.top != nil), ("$skip", options.skip != nil),
                                 ("$skiptoken", options.skipToken != nil), ("$inlinecount", options.inlineCount != nil),
                                 ("$search", options.search != nil)],
                       "a single entity")
        case .property, .rawValue:
            try refuse(options, [("$filter", options.filter != nil), ("$orderby", !options.orderBy.isEmpty), ("$top", options.top != nil),
                                 ("$skip", options.skip != nil), ("$select", !options.select.isEmpty), ("$expand", !options.expand.isEmpty),
                                 ("$skiptoken", options.skipToken != nil), ("$inlinecount", options.inlineCount != nil),
                                 ("$search", options.search != nil)],
                       "a property")
        case .count:
            try refuse(options, [("$select", !options.select.isEmpty), ("$expand", !options.expand.isEmpty),
                                 ("$skiptoken", options.skipToken != nil), ("$inlinecount", options.inlineCount != nil)],
                       "$count")
        case .links:
            try refuse(options, [("$select", !options.select.isEmpty), ("$expand", !options.expand.isEmpty)], "$links")
        case .entities:
            break
        }
        if let search = options.search {
            // $apply runs before the other options: a search after it would look at groups, not entities.
            guard options.apply.isEmpty else {
                throw .badRequest("$search cannot be combined with $apply; filter the entities inside $apply with filter(…)")
            }
            let searched = SearchFilter.expression(search, over: type)
            options.filter = options.filter.map { $0 && searched } ?? searched
        }
        return try QueryBinder(model: call.service.model, version: call.version).bind(options, to: type)
    }

    /// The type the options apply to: the target's, or for `$links` the linked entities'.
    private static func optionsType(_ call: ODataCall, _ path: ResolvedPath) -> EntityType {
        if case .links(let navigation, _) = path.terminal, let set = call.service.model.entitySet(named: navigation.targetSet) {
            return call.service.model.entityType(of: set)
        }
        return path.target.type
    }

    private static func refuse(_ options: QueryOptions, _ present: [(String, Bool)], _ resource: String) throws(ODataError) {
        if let (name, _) = present.first(where: { $0.1 }) {
            throw .badRequest("\(name) cannot be applied to \(resource).")
        }
    }
}
