import StrataStorage

extension ModelFile {
    /// A model's naming problems as the file's error: each at the line that gave the name (the
    /// first problem's line leads; the others follow in the message).
    func error(for naming: ModelNamingError) -> ModelFileError {
        let located = naming.problems.map { (line: line(of: $0.subject), text: $0.description) }
            .sorted { ($0.line ?? .max, $0.text) < ($1.line ?? .max, $1.text) }
        let others = located.dropFirst().map { ($0.line.map { "line \($0): " } ?? "") + $0.text }
        let message = ([located.first?.text ?? naming.description] + others).joined(separator: " ")
        return ModelFileError(path: path, line: located.first?.line, message: message)
    }

    /// The line that names `subject`, if the file names it.
    private func line(of subject: ModelNamingError.Subject) -> Int? {
        switch subject {
        case .table(let name):
            guard let table = tables.first(where: { $0.table == name }) else { return nil }
            return table.name?.line ?? table.line
        case .column(let tableName, let column):
            guard let entry = tables.first(where: { $0.table == tableName })?.columns.first(where: { $0.column == column }) else {
                return nil
            }
            return entry.name?.line ?? entry.line
        case .navigation(let tableName, let columns, let reverse):
            let owner = tables.first { table in table.relationships.contains { $0.columns == columns } && table.table == tableName }
                ?? tables.first { $0.table == tableName }
            guard let relationship = owner?.relationships.first(where: { $0.columns == columns }) else { return nil }
            return (reverse ? relationship.reverseName?.line : relationship.name?.line) ?? relationship.line
        }
    }
}
