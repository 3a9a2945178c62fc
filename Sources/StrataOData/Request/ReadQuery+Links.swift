import StrataCore

extension ReadQuery {
    /// What a `$links` read reads: the linked entities (the path one navigation further) and their
    /// keys only, filtered and ordered like a collection.
    static func linkTarget(_ path: ResolvedPath, _ navigation: NavigationProperty, key: [ODataValue]?, _ query: BoundQuery,
                           model: ServiceModel) throws(ODataError) -> (path: ResolvedPath, query: BoundQuery) {
        guard let targetSet = model.entitySet(named: navigation.targetSet) else {
            throw ODataError.notFound("The entity set \(navigation.targetSet) is not available.")
        }
        let targetType = model.entityType(of: targetSet)
        let linkPath = ResolvedPath(steps: path.steps + [ResolvedPath.Step(set: targetSet, type: targetType, via: navigation, key: key)],
                                    terminal: .entities)
        var keysOnly = query
        keysOnly.projection = BoundProjection(entityType: targetType, properties: targetType.keyProperties,
                                              navigationLinks: [], expansions: [], selectsAll: false)
        return (linkPath, keysOnly)
    }
}
