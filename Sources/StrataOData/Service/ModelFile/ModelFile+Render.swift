import Foundation
import StrataCore
import StrataStorage

extension ServiceLoader.Loaded {
    /// The model being served, written as a model file (`strata service model NAME`): every table
    /// and view with its name, key, columns (name and type) and relationships (navigation names on
    /// both ends), so that a user edits what Strata inferred instead of starting from nothing.
    /// Reading the result back and applying it gives the same model.
    package func modelFileText(service: String) -> String {
        var out = """
            # The model of the service \(service), as Strata serves it.
            # Edit, then apply it for every server with `strata service model \(service) --apply FILE`
            # (or, on one server, save it as <data directory>/\(service).model.yaml and run
            # `strata service reload`). Names on the left are the database's;
            # `name` is what OData clients see. docs/MODEL-FILES.md describes every setting.
            namespace: \(YAMLText.scalar(model.namespace))
            container: \(YAMLText.scalar(model.containerName))
            maxProtocolVersion: "\(maxProtocolVersion == .v1 ? "1.0" : "2.0")"
            odataVersion: "\(settings.odataVersion == .v4 ? "4.0" : "2.0")"
            allowClientKeys: \(settings.allowClientKeys)

            """
        let trackAll = modelFile?.trackAll?.value == true
        if trackAll { out += "track: all\n" }
        let tracked = trackedTables
        out += "tables:\n"
        let hidden = Dictionary(
            (modelFile?.tables ?? []).map { ($0.table, Set($0.columns.filter { $0.hidden?.value == true }.map(\.column))) },
            uniquingKeysWith: { $0.union($1) })
        for table in catalog.sorted(by: { $0.name < $1.name }) {
            guard let set = entitySet(of: table) else { continue }
            let type = model.entityType(of: set)
            out += "  \(YAMLText.scalar(table.name)):\(table.isView ? "  # a view" : "")\n"
            out += "    name: \(YAMLText.scalar(set.name))\n"
            if !trackAll && tracked.contains(table.name) { out += "    track: true\n" }
            if table.primaryKey.isEmpty {
                out += "    key: \(YAMLText.list(table.declaredKey ?? type.keyNames.compactMap { columnName($0, in: table) }))"
                out += table.declaredKey == nil ? "  # inferred: declare the view's real key\n" : "\n"
            } else {
                out += "    # key: \(table.primaryKey.joined(separator: ", ")) (the primary key)\n"
            }
            out += "    columns:\n"
            for column in table.columns {
                guard let name = propertyName(column, in: table), let property = type.property(named: name) else { continue }
                let readers = column.readableBy.map { ", readableBy: \(YAMLText.list($0.sorted()))" } ?? ""
                out += "      \(YAMLText.scalar(column.name)): { name: \(YAMLText.scalar(property.name)), type: \(property.type.rawValue)\(readers) }"
                out += "  # \(column.declaredType.isEmpty ? "no declared type" : column.declaredType)\(column.isServerGenerated ? ", generated" : "")\n"
            }
            let original = self.original.first { $0.name == table.name }
            for name in (hidden[table.name] ?? []).sorted() {
                let declared = original?.column(named: name)?.declaredType ?? ""
                out += "      \(YAMLText.scalar(name)): { hidden: true }  # \(declared)\n"
            }
            let relationships = table.foreignKeys.compactMap { fk in navigationNames(of: fk, from: table).map { (fk, $0) } }
            if !relationships.isEmpty { out += "    relationships:\n" }
            for (fk, names) in relationships {
                out += "      - columns: \(YAMLText.list(fk.columns))\n"
                out += "        references: \(YAMLText.scalar(fk.referencedTable))\n"
                out += "        referencedColumns: \(YAMLText.list(fk.referencedColumns))\n"
                out += "        name: \(YAMLText.scalar(names.forward))\n"
                out += "        reverseName: \(YAMLText.scalar(names.reverse))\(fk.isDeclared ? "  # declared here, not in the database" : "")\n"
            }
        }
        return out
    }

    /// The entity set that serves `table` (the model names it; ``StorageNames`` maps it back).
    package func entitySet(of table: CatalogTable) -> EntitySet? {
        model.entitySets.first { built.names.table($0.name) == table.name }
    }

    /// The property that serves `column` of `table`.
    func propertyName(_ column: CatalogColumn, in table: CatalogTable) -> String? {
        guard let set = entitySet(of: table) else { return nil }
        let type = model.entityType(of: set)
        return type.properties.first { built.names.column($0.name, of: type.name) == column.name }?.name
    }

    private func columnName(_ property: String, in table: CatalogTable) -> String? {
        table.columns.first { propertyName($0, in: table) == property }?.name
    }

    /// The navigation properties a foreign key became: on the referencing type, the one over its
    /// columns to the referenced set; on the referenced type, the one back.
    func navigationNames(of fk: CatalogForeignKey, from table: CatalogTable) -> (forward: String, reverse: String)? {
        guard let set = entitySet(of: table),
              let target = catalog.first(where: { $0.name == fk.referencedTable }), let targetSet = entitySet(of: target) else { return nil }
        let local = fk.columns.compactMap { name in table.column(named: name).flatMap { propertyName($0, in: table) } }
        let remote = fk.referencedColumns.compactMap { name in target.column(named: name).flatMap { propertyName($0, in: target) } }
        let forward = model.entityType(of: set).navigationProperties.first {
            $0.targetSet == targetSet.name && $0.joinColumns.map(\.local) == local && $0.joinColumns.map(\.remote) == remote
        }
        let reverse = model.entityType(of: targetSet).navigationProperties.first {
            $0.targetSet == set.name && $0.joinColumns.map(\.local) == remote && $0.joinColumns.map(\.remote) == local
                && $0.relationship == forward?.relationship
        }
        guard let forward, let reverse else { return nil }
        return (forward.name, reverse.name)
    }
}

/// YAML scalars and flow lists as a model file writes them: plain where YAML reads them back as
/// the same string, double-quoted otherwise.
enum YAMLText {
    static func scalar(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { $0 == "_" || $0 == "." || $0.properties.isAlphabetic || $0.properties.numericType != nil }
            && text.unicodeScalars.first.map { $0.properties.isAlphabetic || $0 == "_" } == true
            && !["true", "false", "yes", "no", "on", "off", "null", "y", "n"].contains(text.lowercased())
        if plain { return text }
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\t": quoted += "\\t"
            default:
                if scalar.value < 0x20 { quoted += String(format: "\\x%02X", scalar.value) } else { quoted.unicodeScalars.append(scalar) }
            }
        }
        return quoted + "\""
    }

    static func list(_ items: [String]) -> String {
        "[" + items.map(scalar).joined(separator: ", ") + "]"
    }
}
