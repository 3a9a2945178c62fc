import StrataCore
import StrataSQL
import StrataDataTables
import StrataOData
import StrataIdentity
import StrataStorage

/// The sets a feed request names (`$feed?sets=…`, `$tables?names=…&since=…`), checked: each exists,
/// is tracked, and may be read by the caller; a `$filter` or `$select` applies to one set only; and
/// neither the filter nor the caller's row filter reaches another table (a change there would move
/// rows in or out without a change in this table's log). The fingerprints and the shape the hub
/// serves follow from them.
struct FeedQuery: Sendable {
    struct Member: Sendable {
        var set: EntitySet
        var type: EntityType
        var bound: BoundQuery
        var rowFilter: BoundExpression?
    }

    let call: ODataCall
    let members: [Member]
    let options: QueryOptions

    /// More sets than this in one request is refused.
    static let maximumSets = 64

    /// `options` names the request's own custom options (`sets`, `since`, …): any other is refused.
    init(call: ODataCall, authorizer: Authorizer, names: [String], allowedOptions: Set<String>) async throws {
        self.call = call
        let options = try QueryOptions(parsing: call.url.rawQuery, limits: call.settings.queryLimits)
        for option in options.customOptions where !allowedOptions.contains(option.name) {
            throw ODataError.badRequest("The change feed does not know the option '\(option.name.prefix(60))'.")
        }
        if !options.expand.isEmpty { throw ODataError.badRequest("$expand does not apply to the change feed: follow related sets by name.") }
        if !options.orderBy.isEmpty || options.top != nil || options.skip != nil || options.skipToken != nil || options.inlineCount != nil {
            throw ODataError.badRequest("The change feed takes $filter and $select only; changes come in commit order.")
        }
        if names.count > 1, options.filter != nil || !options.select.isEmpty {
            throw ODataError.badRequest("$filter and $select apply to one set: subscribe to each set that needs them on its own.")
        }
        let model = call.service.model
        var members: [Member] = []
        for name in names {
            guard let set = model.entitySet(named: name) else {
                throw ODataError.notFound("There is no set named '\(name.prefix(100))' in \(call.service.name). Sets: \(model.entitySets.map(\.name).joined(separator: ", ")).")
            }
            guard call.service.trackedTables.contains(call.service.storage.names.table(set.name)) else {
                throw ODataError.badRequest("\(set.name) is not tracked, so it has no changes to follow; an administrator turns tracking on with `strata service track \(call.service.name) --tables \(set.name)`.")
            }
            let type = model.entityType(of: set)
            let bound = try QueryBinder(model: model).bind(names.count == 1 ? options : QueryOptions(), to: type)
            let access = try await authorizer.authorize(.read, set.name)
            if bound.filter?.propertyPaths.contains(where: { !$0.navigation.isEmpty }) == true {
                throw ODataError.badRequest("The change feed's $filter names properties of \(set.name) only, not of related sets.")
            }
            if access.filter?.propertyPaths.contains(where: { !$0.navigation.isEmpty }) == true {
                throw ODataError(status: 403, code: "Forbidden",
                                 message: "Your rows of \(set.name) are decided by related rows, which the change feed cannot follow; read the set instead.")
            }
            members.append(Member(set: set, type: type, bound: bound, rowFilter: access.filter))
        }
        self.members = members
        self.options = options
    }

    var queryFingerprint: [UInt8] {
        FeedFingerprint.query(service: call.service.name, sets: members.map(\.set.name), options: options)
    }

    var rightsFingerprint: [UInt8] {
        FeedFingerprint.rights(service: call.service, sets: members.map { ($0.set, $0.rowFilter) })
    }

    /// The served properties of a member: what `$select` names and the key, in the type's order.
    static func properties(_ member: Member) -> [EntityProperty] {
        let projection = member.bound.projection
        guard !projection.selectsAll else { return member.type.properties }
        let selected = Set(projection.properties.map(\.name)).union(member.type.keyNames)
        return member.type.properties.filter { selected.contains($0.name) }
    }

    /// What the hub serves this caller.
    var shape: FeedShape {
        let storage = call.service.storage
        let allowClientKeys = call.service.settings.allowClientKeys
        let shapeMembers = members.map { member -> FeedShape.Member in
            let properties = Self.properties(member)
            var terms: [SQLTerm] = []
            let sql = RowFilterSQL(storage: storage)
            if let filter = member.bound.filter { terms.append(sql.condition(filter, alias: PathPlanner.targetAlias, set: member.set, type: member.type)) }
            if let filter = member.rowFilter { terms.append(sql.condition(filter, alias: PathPlanner.targetAlias, set: member.set, type: member.type)) }
            let key = terms.isEmpty ? nil : String(reflecting: member.bound.filter) + "\u{1}" + String(reflecting: member.rowFilter)
            return FeedShape.Member(
                set: member.set, type: member.type, table: storage.names.table(member.set.name),
                fields: properties.map { TableFields.field($0, of: member.type, in: member.set, allowClientKeys: allowClientKeys) },
                properties: properties.map(\.name),
                condition: terms.isEmpty ? nil : (terms.count == 1 ? terms[0] : .and(terms)), conditionKey: key)
        }
        return FeedShape(members: shapeMembers, query: queryFingerprint, rights: rightsFingerprint)
    }

    /// A list option (`sets`, `names`): names separated by commas, each once, at most ``maximumSets``.
    static func names(_ list: String?, option: String) throws(ODataError) -> [String] {
        guard let list else { throw .badRequest("Name the sets as \(option)=A,B.") }
        let names = list.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingWhitespace() }
        guard !names.contains(where: \.isEmpty) else {
            throw .badRequest("\(option) lists set names separated by commas, without empty entries.")
        }
        guard names.count <= maximumSets else {
            throw .badRequest("\(option) lists \(names.count) sets; at most \(maximumSets) can be followed in one request.")
        }
        var seen = Set<String>()
        for name in names where !seen.insert(name).inserted {
            throw .badRequest("\(option) lists \(name.prefix(100)) twice.")
        }
        return names
    }
}
