/// Merges `$expand` and `$select` into a ``BoundProjection`` tree.
struct ProjectionBinder {
    /// One level of the response while options are being applied.
    private struct Level {
        var type: EntityType
        var navigation: NavigationProperty?
        var targetSet: EntitySet?
        var children: [Level] = []
        /// Some `$select` item reaches this level.
        var isMentioned = false
        var selectsAll = false
        var properties: Set<String> = []
        var links: Set<String> = []
        /// V4's options for this level (an expanded one), bound; its own `$select` narrows it alone.
        var options: BoundLevelOptions?
        var hasOwnSelect = false

        init(type: EntityType, navigation: NavigationProperty? = nil, targetSet: EntitySet? = nil) {
            self.type = type
            self.navigation = navigation
            self.targetSet = targetSet
        }

        func child(named name: String) -> Int? { children.firstIndex { $0.navigation?.name == name } }
    }

    let model: ServiceModel
    private var root: Level

    init(model: ServiceModel, root: EntityType) {
        self.model = model
        self.root = Level(type: root)
    }

    mutating func expand(_ path: PropertyPath) throws(ODataError) {
        guard !path.segments.isEmpty else { throw .badRequest("$expand: an empty path cannot be expanded") }
        try expand(path.segments[...], at: &root)
    }

    private func expand(_ segments: ArraySlice<String>, at level: inout Level) throws(ODataError) {
        guard let name = segments.first else { return }
        let index: Int
        if let existing = level.child(named: name) {
            index = existing
        } else {
            guard let navigation = level.type.navigationProperty(named: name) else {
                if level.type.property(named: name) != nil {
                    throw .badRequest("$expand: '\(name)' is a property of \(level.type.qualifiedName), not a navigation property; $expand takes navigation properties\(Self.example(level.type))")
                }
                throw QueryBinder.unknownProperty(name, on: level.type, option: "$expand")
            }
            let (set, target) = try QueryBinder.target(of: navigation, in: model)
            level.children.append(Level(type: target, navigation: navigation, targetSet: set))
            index = level.children.count - 1
        }
        try expand(segments.dropFirst(), at: &level.children[index])
    }

    private static func example(_ type: EntityType) -> String {
        type.navigationProperties.first.map { " such as \($0.name)" } ?? ""
    }

    mutating func select(_ item: SelectItem) throws(ODataError) {
        guard !item.path.segments.isEmpty || item.isWildcard else {
            throw .badRequest("$select: an empty item selects nothing; name a property or write *")
        }
        try select(item, from: 0, at: &root)
    }

    private func select(_ item: SelectItem, from index: Int, at level: inout Level) throws(ODataError) {
        level.isMentioned = true
        let segments = item.path.segments
        guard index < segments.count else {
            level.selectsAll = true
            return
        }
        let name = segments[index]
        let isLast = index == segments.count - 1 && !item.isWildcard
        let walked = segments[...index].joined(separator: "/")
        if level.type.property(named: name) != nil {
            guard isLast else {
                throw .badRequest("$select: \(walked) is a property, not a navigation property, so \(item) cannot go further")
            }
            level.properties.insert(name)
            return
        }
        guard level.type.navigationProperty(named: name) != nil else {
            throw QueryBinder.unknownProperty(name, on: level.type, option: "$select")
        }
        level.links.insert(name)
        if isLast { return }
        guard let child = level.child(named: name) else {
            throw .badRequest("$select: \(item) goes through \(walked), which is not expanded; add it to $expand")
        }
        try select(item, from: index + 1, at: &level.children[child])
    }

    /// Binds V4's options of the expanded path `path` (``ExpandOptions``) against its target type.
    /// Their expressions may name the related entity's own properties only: a path through a further
    /// navigation would need joins per parent, which nested options do not plan.
    mutating func apply(_ options: ExpandOptions, at path: PropertyPath, binder: QueryBinder) throws(ODataError) {
        try apply(options, path.segments[...], at: &root, binder: binder, path: path)
    }

    private func apply(_ options: ExpandOptions, _ segments: ArraySlice<String>, at level: inout Level, binder: QueryBinder,
                       path: PropertyPath) throws(ODataError) {
        guard let name = segments.first else {
            var bound = BoundLevelOptions(top: options.top, skip: options.skip, count: options.count)
            let prefix = "$expand, in the options of \(path): "
            do {
                bound.filter = try options.filter.map { (e) throws(ODataError) in try binder.bindFilter(e, on: level.type) }
                bound.orderBy = try binder.bindOrderBy(options.orderBy, on: level.type)
            } catch {
                throw ODataError(status: error.status, code: error.code, message: prefix + error.message)
            }
            let paths = (bound.filter?.propertyPaths ?? []) + bound.orderBy.flatMap(\.expression.propertyPaths)
            if let through = paths.first(where: { !$0.navigation.isEmpty }) {
                throw .badRequest(prefix + "\(through.navigationNames.joined(separator: "/"))/\(through.property.name) goes through a navigation property; the options of an expanded navigation property can name its own properties only")
            }
            level.options = bound
            for item in options.select {
                level.hasOwnSelect = true
                do {
                    try select(item, from: 0, at: &level)
                } catch {
                    throw ODataError(status: error.status, code: error.code, message: prefix + error.message)
                }
            }
            return
        }
        guard let child = level.child(named: name) else {
            throw .internalError("$expand: the options of \(path) were parsed without the path being expanded.")
        }
        try apply(options, segments.dropFirst(), at: &level.children[child], binder: binder, path: path)
    }

    func projection(selectIsActive: Bool, expansionsAlwaysWritten: Bool = false) -> BoundProjection {
        Self.projection(root, selectIsActive: selectIsActive, expansionsAlwaysWritten: expansionsAlwaysWritten)
    }

    private static func projection(_ level: Level, selectIsActive: Bool, expansionsAlwaysWritten: Bool) -> BoundProjection {
        let type = level.type
        // A level no $select item reaches is returned whole: its parent selected it as a navigation
        // property. A level with a $select of its own (V4's nested options) is narrowed by it alone.
        let whole = level.selectsAll || !level.isMentioned || (!selectIsActive && !level.hasOwnSelect)
        let properties = whole ? type.properties : type.properties.filter { level.properties.contains($0.name) }
        var linkNames = level.links
        if expansionsAlwaysWritten { linkNames.formUnion(level.children.compactMap(\.navigation?.name)) }
        let links = whole ? type.navigationProperties : type.navigationProperties.filter { linkNames.contains($0.name) }
        let written = Set(links.map(\.name))
        let expansions = level.children.compactMap { child -> BoundExpansion? in
            guard let navigation = child.navigation, let set = child.targetSet, written.contains(navigation.name) else {
                return nil
            }
            let options = child.options ?? BoundLevelOptions()
            return BoundExpansion(property: navigation, targetSet: set,
                                  projection: projection(child, selectIsActive: selectIsActive, expansionsAlwaysWritten: expansionsAlwaysWritten),
                                  filter: options.filter, orderBy: options.orderBy, top: options.top, skip: options.skip,
                                  count: options.count)
        }
        return BoundProjection(entityType: type, properties: properties, navigationLinks: links,
                               expansions: expansions, selectsAll: whole)
    }
}

/// One expanded level's bound V4 options, until they go into its ``BoundExpansion``.
struct BoundLevelOptions {
    var filter: BoundExpression?
    var orderBy: [BoundOrderByItem] = []
    var top: Int?
    var skip: Int?
    var count = false
}
