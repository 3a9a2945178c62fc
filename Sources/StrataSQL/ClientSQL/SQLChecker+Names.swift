import StrataCore

/// Resolving the table aliases and column names an expression uses, by the catalog's matching rule
/// (exact spelling first, then ignoring case when that finds exactly one).
extension SQLCheckContext {
    /// The index of the source a qualifier (`p` in `p.firstName`) names.
    func resolveQualifier(_ qualifier: SQLIdentifier, _ scope: Scope) throws(ODataError) -> Int {
        let visible = sources.prefix(scope.visibleSources)
        if let index = visible.firstIndex(where: { $0.qualifier.name == qualifier.name })
            ?? visible.firstIndex(where: { $0.storedQualifier == qualifier.name }) { return index }
        if !qualifier.isQuoted {
            let lowered = qualifier.name.lowercased()
            let matches = visible.indices.filter {
                visible[$0].qualifier.name.lowercased() == lowered || visible[$0].storedQualifier?.lowercased() == lowered
            }
            if matches.count == 1 { return matches[0] }
        }
        if sources.dropFirst(scope.visibleSources).contains(where: { $0.qualifier.name.lowercased() == qualifier.name.lowercased() }) {
            throw SQLRefusal.unknownName("\(qualifier) is not joined yet here", at: qualifier.location,
                                         hint: "JOIN … ON may only use the tables joined before it and the one it joins")
        }
        let lowered = qualifier.name.lowercased()
        if let aliased = visible.first(where: { source in
            (source.table.name.lowercased() == lowered || source.table.storedName.lowercased() == lowered) && source.qualifier.name != source.table.name
        }) {
            throw SQLRefusal.unknownName("\(qualifier) is not a name in this query", at: qualifier.location,
                                         hint: "the table \(aliased.table.name) is called \(aliased.qualifier.name) here")
        }
        let names = visible.map(\.qualifier.name)
        throw SQLRefusal.unknownName("unknown table or alias \(qualifier)", at: qualifier.location,
                                     hint: names.isEmpty ? "the query has no FROM" : "this query names " + names.joined(separator: ", "))
    }

    /// Resolves a column reference to its source and catalog column.
    func resolveColumn(_ name: SQLColumnName, _ scope: Scope) throws(ODataError) -> (Int, SQLCatalog.Column) {
        if let qualifier = name.qualifier {
            let index = try resolveQualifier(qualifier, scope)
            let table = sources[index].table
            switch table.resolveColumn(name.name) {
            case .found(let column): return (index, column)
            case .ambiguous(let candidates):
                throw ambiguousColumn(name.name, candidates.map { (qualifier.name, $0.name) })
            case .missing:
                throw SQLRefusal.unknownName("\(table.name) has no column \(name.name)", at: name.name.location,
                                             hint: "its columns are " + table.columns.map(\.name).joined(separator: ", "))
            }
        }
        switch lookupColumn(name.name, scope) {
        case .found(let found): return found
        case .ambiguous(let candidates):
            throw ambiguousColumn(name.name, candidates.map { (sources[$0.0].qualifier.name, $0.1.name) })
        case .missing:
            let visible = sources.prefix(scope.visibleSources)
            let qualify = visible.count > 1
            let known = visible.flatMap { source in source.table.columns.map { qualify ? "\(source.qualifier.name).\($0.name)" : $0.name } }
            throw SQLRefusal.unknownName("unknown column \(name.name)", at: name.name.location,
                                         hint: known.isEmpty ? "the query has no FROM" : "columns here are " + known.prefix(40).joined(separator: ", "))
        }
    }

    /// Looks an unqualified column up in every visible source: the exact catalog spelling across all
    /// of them first, then the exact database spelling, then either ignoring case.
    func lookupColumn(_ name: SQLIdentifier, _ scope: Scope) -> SQLCatalog.Match<(Int, SQLCatalog.Column)> {
        let visible = sources.indices.prefix(scope.visibleSources)
        for exactly in [{ (column: SQLCatalog.Column) in column.name == name.name }, { $0.storedName == name.name }] {
            let exact = visible.compactMap { index in sources[index].table.columns.first(where: exactly).map { (index, $0) } }
            if exact.count == 1 { return .found(exact[0]) }
            if exact.count > 1 { return .ambiguous(exact) }
        }
        if name.isQuoted { return .missing }
        let folded = visible.flatMap { index in
            sources[index].table.columns(folding: name.name).map { (index, $0) }
        }
        switch folded.count {
        case 0: return .missing
        case 1: return .found(folded[0])
        default: return .ambiguous(folded)
        }
    }

    private func ambiguousColumn(_ name: SQLIdentifier, _ candidates: [(String, String)]) -> ODataError {
        SQLRefusal.unknownName("the column name \(name) is ambiguous", at: name.location,
                               hint: "it could be " + candidates.map { "\($0.0).\"\($0.1)\"" }.joined(separator: " or ") + "; qualify or quote it")
    }

    /// How a column of the checked query reads in a message: `p.firstName`.
    func display(source index: Int, column: String) -> String {
        "\(sources[index].qualifier.name).\(column)"
    }
}
