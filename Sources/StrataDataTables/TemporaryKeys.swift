import StrataCore
import StrataOData

/// The temporary keys of a delta's inserts and the keys the database chose for them.
///
/// A key is temporary when an insert gives a negative integer for a server-generated key column:
/// the insert leaves the column to the database. Once stored, later changes of the same delta
/// are rewritten: an update or delete addressing the new row by its temporary key, and any
/// foreign key column that points to it (a detail row inserted with its new master).
struct TemporaryKeys: Sendable {
    private let model: ServiceModel
    /// By table: the temporary key values (in key order) and the stored key values.
    private var assigned: [String: [[ODataValue]: DataTableValues]] = [:]
    /// What the response reports, by table, in the order the inserts ran.
    private(set) var report: [String: [DataTableChangeResponse.KeyAssignment]] = [:]

    init(model: ServiceModel) {
        self.model = model
    }

    /// The insert's key in key order when it is temporary, else nil.
    static func temporaryKey(of change: DataTableChange, type: EntityType) -> [ODataValue]? {
        guard change.kind == .insert else { return nil }
        let values = type.keyNames.map { change.key[$0] }
        guard values.allSatisfy({ $0 != nil }) else { return nil }
        let isTemporary = type.keyProperties.contains { property in
            property.isServerGenerated && (change.key[property.name]?.integerValue ?? 0) < 0
        }
        return isTemporary ? values.compactMap { $0 } : nil
    }

    /// Inserts that give a negative value for a generated key among their values, rather than in
    /// their key, give it as their temporary key: the value is a placeholder the server replaces,
    /// not a key the client chose (which the service may refuse, see ``GeneratedValues``).
    static func placeholdersAsKeys(_ changes: [DataTableChange], model: ServiceModel) -> [DataTableChange] {
        changes.map { change in
            guard change.kind == .insert, let set = model.entitySet(named: change.table) else { return change }
            let type = model.entityType(of: set)
            let placeholder = type.keyProperties.contains { property in
                property.isServerGenerated && change.key[property.name] == nil
                    && (change.values[property.name]?.integerValue ?? 0) < 0
            }
            guard placeholder else { return change }
            var change = change
            for name in type.keyNames where change.key[name] == nil {
                change.key[name] = change.values[name]
            }
            return change
        }
    }

    /// Records the key an insert with a temporary key was given.
    mutating func record(_ change: DataTableChange, type: EntityType, stored: DataTableValues) {
        guard let temporary = Self.temporaryKey(of: change, type: type) else { return }
        let key = Dictionary(uniqueKeysWithValues: type.keyNames.map { ($0, stored[$0] ?? .null) })
        assigned[change.table, default: [:]][Self.normalized(temporary)] = key
        report[change.table, default: []].append(.init(temporary: change.key, key: key))
    }

    /// The change with temporary keys it refers to replaced by the stored ones.
    func rewrite(_ change: DataTableChange) -> DataTableChange {
        guard !assigned.isEmpty, let set = model.entitySet(named: change.table) else { return change }
        var change = change
        let type = model.entityType(of: set)
        if change.kind != .insert, let stored = lookup(set.name, type.keyNames.map { change.key[$0] }) {
            change.key = stored
        }
        for association in model.associations where Self.shortName(association.dependent.entityType) == type.name {
            guard let principal = principalSet(of: association), assigned[principal.set.name] != nil else { continue }
            // Only references to the principal's key can name a temporary key.
            guard Set(association.principalColumns) == Set(principal.type.keyNames) else { continue }
            let byPrincipal = Dictionary(uniqueKeysWithValues: zip(association.principalColumns, association.dependentColumns))
            let referenced = principal.type.keyNames.map { byPrincipal[$0].flatMap { change.values[$0] } }
            guard let stored = lookup(principal.set.name, referenced) else { continue }
            for (principalColumn, dependentColumn) in byPrincipal {
                change.values[dependentColumn] = stored[principalColumn]
            }
        }
        return change
    }

    /// Applies inserts that give a temporary key before the changes that refer to it, keeping the
    /// delta's order otherwise, so a client may list a detail before its new master.
    ///
    /// - Throws: 400 when two inserts into one table give the same temporary key: the changes that
    ///   refer to it could mean either row.
    static func ordered(_ changes: [DataTableChange], model: ServiceModel) throws(ODataError) -> [DataTableChange] {
        var definedBy: [String: [[ODataValue]: Int]] = [:]
        for (index, change) in changes.enumerated() {
            guard let set = model.entitySet(named: change.table),
                  let temporary = temporaryKey(of: change, type: model.entityType(of: set)) else { continue }
            if let earlier = definedBy[set.name]?[normalized(temporary)] {
                let shown = temporary.map { ODataLiteral.format($0) }.joined(separator: ",")
                throw .badRequest("Changes \(earlier + 1) and \(index + 1) both insert into \(set.name) with the temporary key \(shown); give each new row its own negative key.")
            }
            definedBy[set.name, default: [:]][normalized(temporary)] = index
        }
        guard !definedBy.isEmpty else { return changes }
        var placed = Set<Int>()
        var visiting = Set<Int>()
        var result: [DataTableChange] = []
        func place(_ index: Int) {
            guard !placed.contains(index), visiting.insert(index).inserted else { return }
            for dependency in dependencies(of: changes[index], definedBy: definedBy, model: model) where dependency != index {
                place(dependency)
            }
            visiting.remove(index)
            placed.insert(index)
            result.append(changes[index])
        }
        for index in changes.indices { place(index) }
        return result
    }

    private static func dependencies(of change: DataTableChange, definedBy: [String: [[ODataValue]: Int]], model: ServiceModel) -> [Int] {
        guard let set = model.entitySet(named: change.table) else { return [] }
        let type = model.entityType(of: set)
        var found: [Int] = []
        if change.kind != .insert, let index = definedBy[set.name]?[normalized(type.keyNames.compactMap { change.key[$0] })] {
            found.append(index)
        }
        for association in model.associations where shortName(association.dependent.entityType) == type.name {
            guard let principal = principalSet(of: association, in: model), let keys = definedBy[principal.set.name] else { continue }
            let byPrincipal = Dictionary(uniqueKeysWithValues: zip(association.principalColumns, association.dependentColumns))
            let referenced = principal.type.keyNames.compactMap { byPrincipal[$0].flatMap { change.values[$0] } }
            if referenced.count == principal.type.keyNames.count, let index = keys[normalized(referenced)] { found.append(index) }
        }
        return found
    }

    private func lookup(_ table: String, _ values: [ODataValue?]) -> DataTableValues? {
        guard let keys = assigned[table], values.allSatisfy({ $0 != nil }) else { return nil }
        return keys[Self.normalized(values.compactMap { $0 })]
    }

    private func principalSet(of association: Association) -> (set: EntitySet, type: EntityType)? {
        Self.principalSet(of: association, in: model)
    }

    private static func principalSet(of association: Association, in model: ServiceModel) -> (set: EntitySet, type: EntityType)? {
        let name = shortName(association.principal.entityType)
        guard let set = model.entitySets.first(where: { shortName($0.entityTypeName) == name }) else { return nil }
        return (set, model.entityType(of: set))
    }

    /// Integers of every width compare alike: a key read as Int32 and a foreign key read as Int64.
    private static func normalized(_ values: [ODataValue]) -> [ODataValue] {
        values.map { value in value.integerValue.map(ODataValue.int64) ?? value }
    }

    private static func shortName(_ qualified: String) -> String {
        ForeignKeyDiagnosis.shortName(qualified)
    }
}
