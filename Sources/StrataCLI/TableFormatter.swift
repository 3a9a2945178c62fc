import Foundation
import StrataClient
import StrataCore

/// Lays entities out as an aligned text table: one column per primitive property in the order the
/// server wrote them, expanded to-one entities as `Nav/property` columns, expanded collections as a count.
struct TableFormatter {
    /// Cells longer than this are cut with `…`; nil keeps everything.
    var maximumWidth: Int?

    func render(_ entities: [Entity]) -> String {
        var columns: [String] = []
        var seen: Set<String> = []
        let rows = entities.map { entity -> [String: String] in
            var cells: [String: String] = [:]
            flatten(entity, prefix: "", into: &cells, columns: &columns, seen: &seen)
            return cells
        }
        guard !columns.isEmpty else { return entities.isEmpty ? "(no entities)\n" : "" }
        return render(columns: columns, rows: rows.map { row in columns.map { row[$0] ?? "" } })
    }

    /// Rows of cells under column names (cells cut to ``maximumWidth``).
    func render(columns: [String], rows: [[String]]) -> String {
        let rows = rows.map { $0.map(clipped) }
        let widths = columns.indices.map { index in
            rows.reduce(columns[index].count) { max($0, $1[index].count) }
        }
        var out = line(columns, widths) + "\n"
        out += widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
        for row in rows {
            out += line(row, widths) + "\n"
        }
        return out
    }

    private func line(_ cells: [String], _ widths: [Int]) -> String {
        var text = ""
        for (index, cell) in cells.enumerated() {
            if index > 0 { text += "  " }
            text += index == cells.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
        }
        return text
    }

    private func flatten(_ entity: Entity, prefix: String, into cells: inout [String: String],
                         columns: inout [String], seen: inout Set<String>) {
        func add(_ name: String, _ value: String) {
            if seen.insert(name).inserted { columns.append(name) }
            cells[name] = clipped(value)
        }
        for entry in entity.json.entries where !entry.key.hasPrefix("__") {
            let name = prefix + entry.key
            if let value = entity[entry.key] {
                add(name, Self.display(value))
                continue
            }
            switch entity.navigation(entry.key) {
            case .entity(let related?)?:
                flatten(related, prefix: name + "/", into: &cells, columns: &columns, seen: &seen)
            case .entity(nil)?:
                add(name, "null")
            case .entities(let related)?:
                add(name, "[\(related.count)]")
            default:
                break
            }
        }
    }

    private func clipped(_ text: String) -> String {
        let single = text.replacingOccurrences(of: "\n", with: " ")
        guard let maximumWidth, single.count > maximumWidth else { return single }
        return String(single.prefix(max(1, maximumWidth - 1))) + "…"
    }

    /// A value as people read it: strings bare, dates in ISO 8601, null as `null`.
    static func display(_ value: ODataValue) -> String {
        switch value {
        case .null: return "null"
        case .string(let s): return s
        case .boolean(let b): return b ? "true" : "false"
        case .dateTime(let d): return d.formatted(dateTimeSeparator: " ")
        case .dateTimeOffset(let d): return d.isoString
        case .int32(let v): return String(v)
        case .int64(let v): return String(v)
        case .double(let v): return String(v)
        default: return ODataLiteral.format(value)
        }
    }
}
