import Logging
import StrataCore

extension ModelBuilder {
    /// One navigation property waiting for its final name.
    private struct PendingNavigation {
        /// The entity type (and set) it belongs to.
        var owner: String
        var property: NavigationProperty
        /// The foreign key's property names on the referencing side, for disambiguating suffixes.
        var foreignKeyProperties: [String]
        /// Named by the model (``CatalogForeignKey/navigationName``): never renamed.
        var isExplicit: Bool
        var subject: ModelNamingError.Subject
    }

    /// One association per foreign key between served tables, and the navigation properties of both
    /// ends added to `exposed`'s types. Join columns and the association's columns are property names.
    func buildAssociations(exposed: inout [String: Exposed], problems: inout [ModelNamingError.Problem]) -> [Association] {
        var associations: [Association] = []
        var associationNames: Set<String> = []
        var pending: [PendingNavigation] = []
        var pairCounts: [String: Int] = [:]
        let ordered = exposed.keys.sorted()
        for tableName in ordered {
            for fk in exposed[tableName]!.table.foreignKeys {
                pairCounts["\(tableName)|\(fk.referencedTable)", default: 0] += 1
            }
        }
        for dependentTable in ordered {
            let dependent = exposed[dependentTable]!
            for fk in dependent.table.foreignKeys {
                guard let principal = exposed[fk.referencedTable],
                      let columns = dependent.properties(fk.columns), let referenced = principal.properties(fk.referencedColumns)
                else {
                    logger.notice("Foreign key left out: it references columns or a table not exposed",
                                  metadata: meta(dependentTable, column: fk.columns.joined(separator: ",")))
                    continue
                }
                var name = "FK_\(dependent.name)_\(principal.name)"
                if pairCounts["\(dependentTable)|\(fk.referencedTable)", default: 0] > 1 { name += "_" + columns.joined(separator: "_") }
                name = Self.distinct(name, from: associationNames)
                associationNames.insert(name)
                let selfReference = dependentTable == principal.table.name
                let principalRole = principal.name
                let dependentRole = selfReference ? "\(dependent.name)1" : dependent.name
                let required = columns.allSatisfy { column in dependent.type.property(named: column).map { !$0.isNullable } ?? false }
                let dependentIsUnique = Set(fk.columns) == Set(dependent.table.primaryKey)
                    || dependent.table.uniqueKeys.contains { Set($0) == Set(fk.columns) }
                let association = Association(
                    name: name,
                    principal: .init(role: principalRole, entityType: principal.type.qualifiedName, multiplicity: required ? .one : .zeroOrOne),
                    dependent: .init(role: dependentRole, entityType: dependent.type.qualifiedName, multiplicity: dependentIsUnique ? .zeroOrOne : .many),
                    principalColumns: referenced, dependentColumns: columns, constraintName: fk.name)
                associations.append(association)
                let joins = zip(columns, referenced).map { NavigationProperty.JoinColumn(local: $0, remote: $1) }
                pending.append(PendingNavigation(owner: dependent.name, property: NavigationProperty(
                    name: fk.navigationName ?? principal.name, relationship: "\(namespace).\(name)", fromRole: dependentRole,
                    toRole: principalRole, targetSet: principal.name, multiplicity: association.principal.multiplicity, joinColumns: joins),
                    foreignKeyProperties: columns, isExplicit: fk.navigationName != nil,
                    subject: .navigation(table: dependentTable, columns: fk.columns, reverse: false)))
                pending.append(PendingNavigation(owner: principal.name, property: NavigationProperty(
                    name: fk.reverseNavigationName ?? dependent.name, relationship: "\(namespace).\(name)", fromRole: principalRole,
                    toRole: dependentRole, targetSet: dependent.name, multiplicity: association.dependent.multiplicity,
                    joinColumns: joins.map { .init(local: $0.remote, remote: $0.local) }),
                    foreignKeyProperties: columns, isExplicit: fk.reverseNavigationName != nil,
                    subject: .navigation(table: dependentTable, columns: fk.columns, reverse: true)))
            }
        }
        let types = Dictionary(exposed.values.map { ($0.name, $0.type) }, uniquingKeysWith: { a, _ in a })
        problems += explicitNameProblems(pending, types: types)
        var byOwner: [String: [NavigationProperty]] = [:]
        for navigation in disambiguated(pending, types: types) {
            byOwner[navigation.owner, default: []].append(navigation.property)
        }
        for key in exposed.keys {
            exposed[key]!.type.navigationProperties = byOwner[exposed[key]!.name] ?? []
        }
        return associations
    }

    /// Explicit navigation names that are not identifiers, or that name a property or another
    /// explicit navigation of the same type.
    private func explicitNameProblems(_ pending: [PendingNavigation], types: [String: EntityType]) -> [ModelNamingError.Problem] {
        var problems: [ModelNamingError.Problem] = []
        var seen: Set<String> = []
        for item in pending where item.isExplicit {
            let name = item.property.name
            if !ODataIdentifier.isValid(name) {
                problems.append(.init(subject: item.subject, message: "'\(name)' is not an OData name: use letters, digits and _, starting with a letter or _"))
            } else if types[item.owner]?.property(named: name) != nil {
                problems.append(.init(subject: item.subject, message: "'\(name)' is the name of a property of \(item.owner); choose another name"))
            } else if !seen.insert("\(item.owner).\(name)").inserted {
                problems.append(.init(subject: item.subject, message: "'\(name)' is given to two navigation properties of \(item.owner)"))
            }
        }
        return problems
    }

    /// Renames navigation properties Strata named whose names collide with a property or another
    /// navigation of the same type; explicit names stay as they are.
    private func disambiguated(_ pending: [PendingNavigation], types: [String: EntityType]) -> [PendingNavigation] {
        var result = pending
        for pass in 0..<2 {
            var counts: [String: Int] = [:]
            for item in result { counts["\(item.owner).\(item.property.name)", default: 0] += 1 }
            for index in result.indices where !result[index].isExplicit {
                let item = result[index]
                let clashesWithProperty = types[item.owner]?.property(named: item.property.name) != nil
                guard clashesWithProperty || counts["\(item.owner).\(item.property.name)", default: 0] > 1 else { continue }
                let suffix = item.foreignKeyProperties.joined(separator: "_")
                if pass == 0 {
                    result[index].property.name = "\(item.property.name)_\(suffix)"
                } else if item.property.multiplicity == .many {
                    // A self-reference still clashes after the first pass: both ends are named after the same table.
                    result[index].property.name = "Referencing\(item.property.name)"
                }
            }
        }
        // What still clashes (names that sanitizing or explicit names brought together) gets a
        // numeric suffix; the first in foreign-key order keeps its name.
        var taken: [String: Set<String>] = [:]
        for item in result where taken[item.owner] == nil {
            taken[item.owner] = Set(types[item.owner]?.properties.map(\.name) ?? [])
        }
        for item in result where item.isExplicit {
            taken[item.owner]!.insert(item.property.name)
        }
        for index in result.indices where !result[index].isExplicit {
            let owner = result[index].owner
            let name = Self.distinct(result[index].property.name, from: taken[owner]!)
            taken[owner]!.insert(name)
            result[index].property.name = name
        }
        return result
    }

    /// `name`, or the first of `name_2`, `name_3`, … not in `taken`.
    static func distinct(_ name: String, from taken: Set<String>) -> String {
        var candidate = name
        var suffix = 2
        while taken.contains(candidate) {
            candidate = "\(name)_\(suffix)"
            suffix += 1
        }
        return candidate
    }
}
