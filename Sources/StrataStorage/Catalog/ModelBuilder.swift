import Logging
import StrataCore

/// Turns a service's catalog into its Entity Data Model: one entity type and set per table or view,
/// one association per foreign key, navigation properties on both ends — and the database names
/// behind the model's names (``StorageNames``).
///
/// Every table, view and column is served under an OData name: its own when it is an identifier,
/// else one made by ``ODataIdentifier`` and kept distinct by ``NameAllocation`` (`Order Details` →
/// `Order_Details`); each such name is logged once per load. A model may name things itself
/// (``CatalogTable/exposedName``, ``CatalogColumn/exposedName``, a foreign key's navigation names):
/// those are checked, and ``build(_:)`` throws ``ModelNamingError`` listing every one that cannot
/// be served. Names Strata makes itself never fail.
///
/// Navigation properties are named after the related entity set, as the CarDealer sample's service
/// does (`Person.PersonCar`, `PersonCar.Car`). Where that name would collide with a property or another
/// navigation, the foreign key's property names are appended (`Teams_homeTeamID`).
package struct ModelBuilder {
    var serviceName: String
    var namespace: String
    var logger: Logger

    package init(serviceName: String, namespace: String, logger: Logger) {
        self.serviceName = serviceName
        self.namespace = namespace
        self.logger = logger
    }

    /// A table that can be served, with its properties named, before its set is named.
    struct Candidate {
        var table: CatalogTable
        var properties: [EntityProperty]
        /// Property name by column name.
        var propertyNames: [String: String]
        /// Key property names.
        var key: [String]
    }

    /// A served table: its set's name and its entity type.
    struct Exposed {
        var table: CatalogTable
        var name: String
        var type: EntityType
        var propertyNames: [String: String]

        func properties(_ columns: [String]) -> [String]? {
            let mapped = columns.compactMap { propertyNames[$0] }
            return mapped.count == columns.count ? mapped : nil
        }
    }

    package func build(_ catalog: [CatalogTable]) throws(ModelNamingError) -> CatalogModel {
        var problems: [ModelNamingError.Problem] = []
        let candidates = catalog.compactMap { candidate($0, problems: &problems) }
        let allocation = NameAllocation(candidates.map { .init(databaseName: $0.table.name, explicitName: $0.table.exposedName) }, kind: "table")
        for problem in allocation.problems {
            problems.append(.init(subject: .table(candidates[problem.member].table.name), message: problem.message))
        }

        var names = StorageNames()
        var sets: [EntitySet] = []
        var exposed: [String: Exposed] = [:]
        for (index, candidate) in candidates.enumerated() {
            let table = candidate.table
            let name = allocation.names[index]
            logRename(allocation.origins[index], table.name, as: name, metadata: meta(table.name))
            var readOnlyReason: String?
            if table.isView {
                readOnlyReason = "\(name) is a view"
            } else if table.primaryKey.isEmpty {
                readOnlyReason = "\(name) has no primary key"
            }
            if let reason = readOnlyReason {
                logger.notice("Entity set is read-only: \(reason)", metadata: meta(table.name))
            }
            names.setTable(table.name, of: name)
            for column in table.columns {
                if let property = candidate.propertyNames[column.name] { names.setColumn(column.name, of: property, in: name) }
            }
            let type = EntityType(name: name, namespace: namespace, properties: candidate.properties, keyNames: candidate.key)
            sets.append(EntitySet(name: name, entityTypeName: name, readOnlyReason: readOnlyReason))
            exposed[table.name] = Exposed(table: table, name: name, type: type, propertyNames: candidate.propertyNames)
        }

        let associations = buildAssociations(exposed: &exposed, problems: &problems)
        guard problems.isEmpty else { throw ModelNamingError(problems: problems) }
        let types = Dictionary(exposed.values.map { ($0.name, $0.type) }, uniquingKeysWith: { a, _ in a })
        let model = ServiceModel(
            serviceName: serviceName, namespace: namespace, containerName: "\(serviceName)Entities",
            entityTypes: sets.compactMap { types[$0.entityTypeName] }, entitySets: sets, associations: associations)
        return CatalogModel(model: model, names: names)
    }

    /// The table's properties, named, and its key; nil when it cannot be served.
    private func candidate(_ table: CatalogTable, problems: inout [ModelNamingError.Problem]) -> Candidate? {
        let columns = table.columns.filter { column in
            guard column.type != nil else {
                logger.notice("Column left out: type \(column.declaredType) has no OData equivalent",
                              metadata: meta(table.name, column: column.name))
                return false
            }
            return true
        }
        let allocation = NameAllocation(columns.map { .init(databaseName: $0.name, explicitName: $0.exposedName) }, kind: "column")
        for problem in allocation.problems {
            problems.append(.init(subject: .column(table: table.name, column: columns[problem.member].name), message: problem.message))
        }
        var properties: [EntityProperty] = []
        var propertyNames: [String: String] = [:]
        for (index, column) in columns.enumerated() {
            let name = allocation.names[index]
            logRename(allocation.origins[index], column.name, as: name, metadata: meta(table.name, column: column.name))
            propertyNames[column.name] = name
            properties.append(EntityProperty(
                name: name, type: column.type!, isNullable: column.isNullable, maxLength: column.maxLength,
                isFixedLength: column.isFixedLength, precision: column.precision, scale: column.scale,
                isServerGenerated: column.isServerGenerated, hasDefault: column.hasDefault))
        }
        let mapped = { (columns: [String]) -> [String]? in
            let names = columns.compactMap { propertyNames[$0] }
            return names.count == columns.count ? names : nil
        }
        // A key a model file declares counts only where the database has none.
        let primary = mapped(table.primaryKey) ?? []
        // A key a model file declares counts only where the database has none.
        var key = primary.isEmpty ? mapped(table.declaredKey ?? []) ?? [] : primary
        if key.isEmpty {
            let uniqueKeys = table.uniqueKeys.compactMap(mapped)
            key = inferredKey(uniqueKeys, properties)
            if !key.isEmpty { logInferredKey(table, key: key, isUniqueIndex: uniqueKeys.contains(key)) }
        }
        guard !key.isEmpty else {
            logger.notice("Table left out: no columns can serve as its key", metadata: meta(table.name))
            return nil
        }
        if !primary.isEmpty {
            // A primary key is never null in OData, whatever SQLite allows.
            for index in properties.indices where key.contains(properties[index].name) {
                properties[index].isNullable = false
            }
        }
        // Any other key keeps its columns' nullability, so that filters, ordering and paging read a
        // null in it as null; `$metadata` still declares keys non-nullable.
        return Candidate(table: table, properties: properties, propertyNames: propertyNames, key: key)
    }

    /// A key for a view or a table without primary key: the first unique index over non-null columns,
    /// else every non-null property of a key-able type, else every key-able property.
    private func inferredKey(_ uniqueKeys: [[String]], _ properties: [EntityProperty]) -> [String] {
        let byName = Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        if let unique = uniqueKeys.first(where: { $0.allSatisfy { byName[$0].map { !$0.isNullable } ?? false } }) {
            return unique
        }
        // A unique index over nullable columns: a row with a null in it shares its key with other
        // such rows, as identical rows share an all-columns key.
        if let unique = uniqueKeys.first(where: { $0.allSatisfy { byName[$0]?.type.canBeKey ?? false } }) {
            return unique
        }
        let keyable = properties.filter(\.type.canBeKey)
        let nonNull = keyable.filter { !$0.isNullable }
        return (nonNull.isEmpty ? keyable : nonNull).map(\.name)
    }

    /// Says once per load which key a view or a table without primary key was given, and, when it
    /// is its columns rather than a unique index, how to declare a better one.
    private func logInferredKey(_ table: CatalogTable, key: [String], isUniqueIndex: Bool) {
        let kind = table.isView ? "view" : "table without primary key"
        if isUniqueIndex {
            logger.info("Key of \(kind) \(table.name) is its unique index (\(key.joined(separator: ", ")))", metadata: meta(table.name))
        } else {
            logger.notice("""
                Key of \(kind) \(table.name) is its columns (\(key.joined(separator: ", "))), for want of a unique index, so \
                its entity URIs name all their values; declare a key for \(table.name) in its model file (see \
                docs/MODEL-FILES.md)
                """, metadata: meta(table.name))
        }
    }

    private func logRename(_ origin: NameAllocation.Origin, _ databaseName: String, as name: String, metadata: Logger.Metadata) {
        guard case .sanitized(let taken) = origin else { return }
        var metadata = metadata
        metadata["name"] = .string(name)
        if let taken {
            logger.notice("Served as \(name): the name is not an OData identifier, and \(taken) is taken", metadata: metadata)
        } else {
            logger.notice("Served as \(name): the name is not an OData identifier", metadata: metadata)
        }
    }

    func meta(_ table: String, column: String? = nil) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["service": .string(serviceName), "table": .string(table)]
        if let column { metadata["column"] = .string(column) }
        return metadata
    }
}
