/// The options table of docs/LIMITS.md ("Every option"), written from the option table (`strata serve --options-markdown`).
extension ServeOptions {
    static var markdownTable: String {
        var lines = ["| option | environment | default | meaning |", "|---|---|---|---|"]
        for row in table {
            let option = row.flag.map { "`--\($0)\(row.valueName.map { " " + $0 } ?? "")`" } ?? "—"
            lines.append("| \(option) | `\(row.variable)` | \(row.defaultValue.markdown) | \(row.summary) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
