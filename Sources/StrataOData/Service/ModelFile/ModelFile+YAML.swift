import StrataCore
import Yams
import StrataStorage

extension ModelFile {
    /// Reads a model file's text. Every problem is a ``ModelFileError`` naming the line and what the
    /// line should hold; nothing is checked against the catalog here (``apply(to:database:)`` does that).
    init(yaml text: String, path: String) throws(ModelFileError) {
        self.init(path: path)
        let reader = NodeReader(path: path)
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: text) else { return }
            root = node
        } catch {
            throw reader.yamlError(error)
        }
        let top = try reader.mapping(root, "the model file", allowed: ["namespace", "container", "maxProtocolVersion", "odataVersion", "allowClientKeys", "track", "tables"])
        for (key, value) in top {
            switch key.name {
            case "namespace":
                namespace = Entry(value: try reader.identifier(value, "namespace", dotted: true), line: reader.line(value))
            case "container":
                container = Entry(value: try reader.identifier(value, "container"), line: reader.line(value))
            case "maxProtocolVersion":
                let text = try reader.string(value, "maxProtocolVersion")
                guard let version = ["1.0": ODataVersion.v1, "1": .v1, "2.0": .v2, "2": .v2][text] else {
                    throw reader.error(value, "maxProtocolVersion is 1.0 or 2.0, not '\(text)'.")
                }
                maxProtocolVersion = Entry(value: version, line: reader.line(value))
            case "odataVersion":
                let text = try reader.string(value, "odataVersion")
                guard let version = ["2.0": ODataVersion.v2, "2": .v2, "4.0": .v4, "4": .v4, "4.01": .v4][text] else {
                    throw reader.error(value, "odataVersion (the version of requests that name none) is 2.0 or 4.0, not '\(text)'.")
                }
                odataVersion = Entry(value: version, line: reader.line(value))
            case "allowClientKeys":
                allowClientKeys = Entry(value: try reader.bool(value, "allowClientKeys"), line: reader.line(value))
            case "track":
                let text = try reader.string(value, "track")
                guard let all = ["all": true, "none": false, "false": false][text] else {
                    throw reader.error(value, "track at the top is 'all' (every table) or 'none'; to track some tables, give 'track: true' on each of them.")
                }
                trackAll = Entry(value: all, line: reader.line(value))
            default:
                for (table, entry) in try reader.mapping(value, "tables", allowed: nil) {
                    tables.append(try reader.table(table, entry))
                }
            }
        }
    }
}

/// Reads the nodes of one file, turning each wrong shape into an error at its line.
private struct NodeReader {
    let path: String

    struct Key {
        var name: String
        var line: Int
    }

    func line(_ node: Node) -> Int { node.mark?.line ?? 1 }

    func error(_ node: Node, _ message: String) -> ModelFileError {
        ModelFileError(path: path, line: node.mark?.line, message: message)
    }

    func yamlError(_ error: any Error) -> ModelFileError {
        guard let yaml = error as? YamlError else {
            return ModelFileError(path: path, line: nil, message: "cannot be read as YAML: \(error)")
        }
        switch yaml {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _), .composer(_, let problem, let mark, _):
            return ModelFileError(path: path, line: mark.line, message: "is not valid YAML here: \(problem).")
        case .duplicatedKeysInMapping(let duplicates, let context):
            return ModelFileError(path: path, line: context.mark.line,
                                  message: "names \(duplicates.joined(separator: ", ")) twice in one mapping: keep one.")
        default:
            return ModelFileError(path: path, line: nil, message: "cannot be read as YAML: \(yaml).")
        }
    }

    /// The pairs of a mapping, each key a string; `allowed` (when given) lists the keys it may have.
    func mapping(_ node: Node, _ what: String, allowed: [String]?) throws(ModelFileError) -> [(Key, Node)] {
        if case .scalar(let scalar) = node, scalar.string.isEmpty || node.null != nil { return [] }
        guard let mapping = node.mapping else {
            throw error(node, "\(what) must be a mapping (name: value lines)\(allowed.map { " of \($0.joined(separator: ", "))" } ?? "").")
        }
        var pairs: [(Key, Node)] = []
        for (key, value) in mapping {
            guard let name = key.scalar?.string else { throw error(key, "A key of \(what) must be a plain name.") }
            if let allowed, !allowed.contains(name) {
                throw error(key, "\(what) has no setting '\(name)'; it may have \(allowed.joined(separator: ", ")).")
            }
            pairs.append((Key(name: name, line: line(key)), value))
        }
        return pairs
    }

    func string(_ node: Node, _ what: String) throws(ModelFileError) -> String {
        guard let scalar = node.scalar else { throw error(node, "\(what) must be a single value.") }
        return scalar.string
    }

    /// A name that becomes part of the OData model: an OData identifier (a letter or `_`, then
    /// letters, digits or `_`); `dotted` allows a namespace's dots between such parts.
    func identifier(_ node: Node, _ what: String, dotted: Bool = false) throws(ModelFileError) -> String {
        let text = try string(node, what)
        let parts = dotted ? text.split(separator: ".", omittingEmptySubsequences: false).map(String.init) : [text]
        guard parts.allSatisfy({ ODataIdentifier.isValid($0) }) else {
            throw error(node, "\(what) '\(text)' is not an OData identifier: use letters, digits and _, starting with a letter or _\(dotted ? " (dots between parts)" : "").")
        }
        return text
    }

    func bool(_ node: Node, _ what: String) throws(ModelFileError) -> Bool {
        guard let value = node.bool else { throw error(node, "\(what) is true or false.") }
        return value
    }

    /// A list of names, written `[a, b]` or as `- a` lines; a single name is a list of one.
    func names(_ node: Node, _ what: String) throws(ModelFileError) -> [String] {
        if node.scalar != nil { return [try string(node, what)] }
        guard let sequence = node.sequence else { throw error(node, "\(what) is a list of names, as in [a, b].") }
        var names: [String] = []
        for item in sequence { names.append(try string(item, "an item of \(what)")) }
        guard !names.isEmpty else { throw error(node, "\(what) is empty: name at least one.") }
        return names
    }

    func table(_ key: Key, _ node: Node) throws(ModelFileError) -> ModelFile.Table {
        var table = ModelFile.Table(table: key.name, line: key.line)
        let what = "the table \(key.name)"
        for (setting, value) in try mapping(node, what, allowed: ["name", "key", "track", "columns", "relationships"]) {
            switch setting.name {
            case "name":
                table.name = .init(value: try identifier(value, "The name of \(key.name)"), line: line(value))
            case "key":
                table.key = .init(value: try names(value, "The key of \(key.name)"), line: line(value))
            case "track":
                table.track = .init(value: try bool(value, "track (of \(key.name))"), line: line(value))
            case "columns":
                for (column, entry) in try mapping(value, "the columns of \(key.name)", allowed: nil) {
                    table.columns.append(try self.column(column, entry, table: key.name))
                }
            default:
                guard let sequence = value.sequence else {
                    throw error(value, "The relationships of \(key.name) are a list: each item starts with '- columns:'.")
                }
                for item in sequence { table.relationships.append(try relationship(item, table: key.name)) }
            }
        }
        return table
    }

    func column(_ key: Key, _ node: Node, table: String) throws(ModelFileError) -> ModelFile.Column {
        var column = ModelFile.Column(column: key.name, line: key.line)
        let what = "the column \(table).\(key.name)"
        for (setting, value) in try mapping(node, what, allowed: ["name", "type", "hidden", "readableBy"]) {
            switch setting.name {
            case "name":
                column.name = .init(value: try identifier(value, "The name of \(table).\(key.name)"), line: line(value))
            case "type":
                let text = try string(value, "The type of \(table).\(key.name)")
                guard let type = EDMPrimitiveType(name: text) else {
                    throw error(value, "'\(text)' is not an EDM type; use one of \(EDMPrimitiveType.allCases.map(\.rawValue).joined(separator: ", ")).")
                }
                column.type = .init(value: type, line: line(value))
            case "readableBy":
                column.readableBy = .init(value: try names(value, "readableBy (role names)"), line: line(value))
            default:
                column.hidden = .init(value: try bool(value, "hidden"), line: line(value))
            }
        }
        return column
    }

    func relationship(_ node: Node, table: String) throws(ModelFileError) -> ModelFile.Relationship {
        let what = "a relationship of \(table)"
        var columns: [String]?
        var references: String?
        var relationship = ModelFile.Relationship(line: line(node), columns: [], references: "")
        for (setting, value) in try mapping(node, what, allowed: ["columns", "references", "referencedColumns", "name", "reverseName"]) {
            switch setting.name {
            case "columns": columns = try names(value, "columns")
            case "references": references = try string(value, "references")
            case "referencedColumns": relationship.referencedColumns = try names(value, "referencedColumns")
            case "name": relationship.name = .init(value: try identifier(value, "The name of a relationship of \(table)"), line: line(value))
            default: relationship.reverseName = .init(value: try identifier(value, "The reverse name of a relationship of \(table)"), line: line(value))
            }
        }
        guard let columns, let references else {
            throw error(node, "A relationship of \(table) needs 'columns' (its columns) and 'references' (the table they refer to).")
        }
        relationship.columns = columns
        relationship.references = references
        return relationship
    }
}
