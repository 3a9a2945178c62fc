import Logging
import StrataCore

/// Turns a service's catalog into its Entity Data Model: one entity type and set per table or view,
/// one association per foreign key, navigation properties on both ends.
///
/// Navigation properties are named after the related table, as the CarDealer sample's service does
/// (`Person.PersonCar`, `PersonCar.Car`). Where that name would collide with a property or another
/// navigation, the foreign key's column names are appended (`Teams_homeTeamID`).
struct ModelBuilder {
    var serviceName: String
    var namespace: String
    var logger: Logger

    func build(_ catalog: [CatalogTable]) -> ServiceModel {
        var types: [String: EntityType] = [:]
        var sets: [EntitySet] = []
        var exposed: [String: CatalogTable] = [:]

        for table in catalog {
            guard isIdentifier(table.name) else {
                logger.notice("Table left out: its name is not an OData identifier", metadata: meta(table.name))
                continue
            }
            var properties: [EntityProperty] = []
            for column in table.columns {
                guard let type = column.type else {
                    logger.notice("Column left out: type \(column.declaredType) has no OData equivalent",
                                  metadata: meta(table.name, column: column.name))
                    continue
                }
                guard isIdentifier(column.name) else {
                    logger.notice("Column left out: its name is not an OData identifier", metadata: meta(table.name, column: column.name))
                    continue
                }
                properties.append(EntityProperty(
                    name: column.name, type: type, isNullable: column.isNullable, maxLength: column.maxLength,
                    isFixedLength: column.isFixedLength, precision: column.precision, scale: column.scale,
                    isServerGenerated: column.isServerGenerated, hasDefault: column.hasDefault))
            }
            let available = Set(properties.map(\.name))
            var readOnlyReason: String?
            var key = table.primaryKey
            if table.isView {
                readOnlyReason = "\(table.name) is a view"
            } else if key.isEmpty {
                readOnlyReason = "\(table.name) has no primary key"
            }
            let declared = !key.isEmpty && key.allSatisfy(available.contains)
            if !declared {
                key = inferredKey(table, properties)
            }
            guard !key.isEmpty, key.allSatisfy(available.contains) else {
                logger.notice("Table left out: no columns can serve as its key", metadata: meta(table.name))
                continue
            }
            if let reason = readOnlyReason {
                logger.notice("Entity set is read-only: \(reason)", metadata: meta(table.name))
            }
            if declared {
                // A primary key is never null in OData, whatever SQLite allows.
                for index in properties.indices where key.contains(properties[index].name) {
                    properties[index].isNullable = false
                }
            } else {
                // An inferred key keeps its columns' nullability, so that filters, ordering and
                // paging read a null in it as null; `$metadata` still declares keys non-nullable.
                logInferredKey(table, key: key)
            }
            types[table.name] = EntityType(name: table.name, namespace: namespace, properties: properties, keyNames: key)
            sets.append(EntitySet(name: table.name, entityTypeName: table.name, readOnlyReason: readOnlyReason))
            exposed[table.name] = table
        }

        let associations = buildAssociations(exposed: exposed, types: &types)
        return ServiceModel(
            serviceName: serviceName, namespace: namespace, containerName: "\(serviceName)Entities",
            entityTypes: sets.compactMap { types[$0.entityTypeName] }, entitySets: sets, associations: associations)
    }

    /// A key for a view or a table without primary key: the first unique index over non-null columns,
    /// else the first unique index over served columns of a key-able type (a row with a null in it
    /// shares its key with other such rows, as identical rows share an all-columns key), else every
    /// non-null column of a key-able type, else every key-able column.
    private func inferredKey(_ table: CatalogTable, _ properties: [EntityProperty]) -> [String] {
        let byName = Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        if let unique = table.uniqueKeys.first(where: { $0.allSatisfy { byName[$0].map { !$0.isNullable } ?? false } }) {
            return unique
        }
        if let unique = table.uniqueKeys.first(where: { $0.allSatisfy { byName[$0]?.type.canBeKey ?? false } }) {
            return unique
        }
        let keyable = properties.filter(\.type.canBeKey)
        let nonNull = keyable.filter { !$0.isNullable }
        return (nonNull.isEmpty ? keyable : nonNull).map(\.name)
    }

    /// Says once per load which key a view or a table without primary key was given, and, when it
    /// is its columns rather than a unique index, how to declare a better one.
    private func logInferredKey(_ table: CatalogTable, key: [String]) {
        let kind = table.isView ? "view" : "table without primary key"
        if table.uniqueKeys.contains(key) {
            logger.info("Key of \(kind) \(table.name) is its unique index (\(key.joined(separator: ", ")))", metadata: meta(table.name))
        } else {
            logger.notice("""
                Key of \(kind) \(table.name) is its columns (\(key.joined(separator: ", "))), for want of a unique index, so \
                its entity URIs name all their values; declare a key for \(table.name) in its model file (see \
                docs/SERVICES.md, "Keys of views and tables without primary key")
                """, metadata: meta(table.name))
        }
    }

    private struct PendingNavigation {
        var owner: String
        var property: NavigationProperty
        var foreignKeyColumns: [String]
    }

    private func buildAssociations(exposed: [String: CatalogTable], types: inout [String: EntityType]) -> [Association] {
        var associations: [Association] = []
        var pending: [PendingNavigation] = []
        var pairCounts: [String: Int] = [:]
        let ordered = exposed.keys.sorted()
        for tableName in ordered {
            for fk in exposed[tableName]!.foreignKeys {
                pairCounts["\(tableName)|\(fk.referencedTable)", default: 0] += 1
            }
        }
        for dependentName in ordered {
            let dependent = exposed[dependentName]!
            for fk in dependent.foreignKeys {
                guard let principal = exposed[fk.referencedTable],
                      let dependentType = types[dependentName], let principalType = types[principal.name],
                      fk.columns.allSatisfy({ dependentType.property(named: $0) != nil }),
                      fk.referencedColumns.allSatisfy({ principalType.property(named: $0) != nil })
                else {
                    logger.notice("Foreign key left out: it references columns or a table not exposed",
                                  metadata: meta(dependentName, column: fk.columns.joined(separator: ",")))
                    continue
                }
                let columnsSuffix = fk.columns.joined(separator: "_")
                var name = "FK_\(dependentName)_\(principal.name)"
                if pairCounts["\(dependentName)|\(principal.name)", default: 0] > 1 { name += "_\(columnsSuffix)" }
                let selfReference = dependentName == principal.name
                let principalRole = principal.name
                let dependentRole = selfReference ? "\(dependentName)1" : dependentName
                let required = fk.columns.allSatisfy { column in dependentType.property(named: column).map { !$0.isNullable } ?? false }
                let dependentIsUnique = Set(fk.columns) == Set(dependent.primaryKey)
                    || dependent.uniqueKeys.contains { Set($0) == Set(fk.columns) }
                let association = Association(
                    name: name,
                    principal: .init(role: principalRole, entityType: "\(namespace).\(principal.name)", multiplicity: required ? .one : .zeroOrOne),
                    dependent: .init(role: dependentRole, entityType: "\(namespace).\(dependentName)", multiplicity: dependentIsUnique ? .zeroOrOne : .many),
                    principalColumns: fk.referencedColumns, dependentColumns: fk.columns, constraintName: fk.name)
                associations.append(association)
                let joins = zip(fk.columns, fk.referencedColumns).map { NavigationProperty.JoinColumn(local: $0, remote: $1) }
                pending.append(PendingNavigation(owner: dependentName, property: NavigationProperty(
                    name: principal.name, relationship: "\(namespace).\(name)", fromRole: dependentRole, toRole: principalRole,
                    targetSet: principal.name, multiplicity: association.principal.multiplicity, joinColumns: joins),
                    foreignKeyColumns: fk.columns))
                pending.append(PendingNavigation(owner: principal.name, property: NavigationProperty(
                    name: dependentName, relationship: "\(namespace).\(name)", fromRole: principalRole, toRole: dependentRole,
                    targetSet: dependentName, multiplicity: association.dependent.multiplicity,
                    joinColumns: joins.map { .init(local: $0.remote, remote: $0.local) }),
                    foreignKeyColumns: fk.columns))
            }
        }
        for navigation in disambiguated(pending, types: types) {
            types[navigation.owner]?.navigationProperties.append(navigation.property)
        }
        return associations
    }

    /// Renames navigation properties whose names collide with a property or another navigation of the same type.
    private func disambiguated(_ pending: [PendingNavigation], types: [String: EntityType]) -> [PendingNavigation] {
        var result = pending
        for pass in 0..<2 {
            var counts: [String: Int] = [:]
            for item in result { counts["\(item.owner).\(item.property.name)", default: 0] += 1 }
            for index in result.indices {
                let item = result[index]
                let clashesWithProperty = types[item.owner]?.property(named: item.property.name) != nil
                guard clashesWithProperty || counts["\(item.owner).\(item.property.name)", default: 0] > 1 else { continue }
                let suffix = item.foreignKeyColumns.joined(separator: "_")
                if pass == 0 {
                    result[index].property.name = "\(item.property.name)_\(suffix)"
                } else if item.property.multiplicity == .many {
                    // A self-reference still clashes after the first pass: both ends are named after the same table.
                    result[index].property.name = "Referencing\(item.property.name)"
                }
            }
        }
        return result
    }

    private func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || first.properties.isAlphabetic else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || $0.properties.isAlphabetic || $0.properties.numericType != nil }
    }

    private func meta(_ table: String, column: String? = nil) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["service": .string(serviceName), "table": .string(table)]
        if let column { metadata["column"] = .string(column) }
        return metadata
    }
}
