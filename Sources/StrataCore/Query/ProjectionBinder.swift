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

    func projection(selectIsActive: Bool) -> BoundProjection {
        Self.projection(root, selectIsActive: selectIsActive)
    }

    private static func projection(_ level: Level, selectIsActive: Bool) -> BoundProjection {
        let type = level.type
        // A level no $select item reaches is returned whole: its parent selected it as a navigation property.
        let whole = !selectIsActive || level.selectsAll || !level.isMentioned
        let properties = whole ? type.properties : type.properties.filter { level.properties.contains($0.name) }
        let links = whole ? type.navigationProperties : type.navigationProperties.filter { level.links.contains($0.name) }
        let linkNames = Set(links.map(\.name))
        let expansions = level.children.compactMap { child -> BoundExpansion? in
            guard let navigation = child.navigation, let set = child.targetSet, linkNames.contains(navigation.name) else {
                return nil
            }
            return BoundExpansion(property: navigation, targetSet: set,
                                  projection: projection(child, selectIsActive: selectIsActive))
        }
        return BoundProjection(entityType: type, properties: properties, navigationLinks: links,
                               expansions: expansions, selectsAll: whole)
    }
}
