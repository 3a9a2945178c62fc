/// Gives each member of a group — a service's tables and views, or one table's columns — a distinct
/// OData name, the same on every load whatever order the catalog lists them in.
///
/// Names are handed out in three rounds, so that no name a client already uses moves when a
/// table or column with an awkward name is added:
/// 1. explicit names (``CatalogTable/exposedName``, ``CatalogColumn/exposedName``), which must be
///    OData identifiers and distinct from each other and from every name of round 2 (a problem
///    otherwise, never a silent rename);
/// 2. database names that are identifiers already, unchanged;
/// 3. the rest, made identifiers (``ODataIdentifier/sanitized(_:)``) in the order of their database
///    names; a name already taken gets the first free suffix `_2`, `_3`, …
struct NameAllocation {
    struct Member {
        var databaseName: String
        var explicitName: String?
    }

    /// How a member got its name, for the load's log.
    enum Origin: Equatable {
        case unchanged
        case explicit
        /// Sanitized; `taken` is the sanitized name when another member had it.
        case sanitized(taken: String?)
    }

    /// Each member's name, in the order given.
    var names: [String] = []
    var origins: [Origin] = []
    /// Explicit names refused, by member position.
    var problems: [(member: Int, message: String)] = []

    /// `kind` says what the members are (`table`, `column`), for messages.
    init(_ members: [Member], kind: String) {
        names = members.map(\.databaseName)
        origins = Array(repeating: .unchanged, count: members.count)
        var owner: [String: Int] = [:]
        var taken: Set<String> = []
        for (index, member) in members.enumerated() {
            guard let explicit = member.explicitName else { continue }
            origins[index] = .explicit
            names[index] = explicit
            if !ODataIdentifier.isValid(explicit) {
                problems.append((index, "'\(explicit)' is not an OData name: use letters, digits and _, starting with a letter or _"))
            } else if let other = owner[explicit] {
                problems.append((index, "'\(explicit)' is also the name given to the \(kind) \(members[other].databaseName)"))
            } else {
                owner[explicit] = index
                taken.insert(explicit)
            }
        }
        for member in members where member.explicitName == nil && ODataIdentifier.isValid(member.databaseName) {
            if let other = owner[member.databaseName] {
                problems.append((other, "'\(member.databaseName)' is the name of the \(kind) \(member.databaseName); rename that one too, or choose another name"))
            }
            taken.insert(member.databaseName)
        }
        let rest = members.indices.filter { members[$0].explicitName == nil && !ODataIdentifier.isValid(members[$0].databaseName) }
        // Database names are distinct within a group; the position breaks ties all the same.
        for index in rest.sorted(by: { (members[$0].databaseName, $0) < (members[$1].databaseName, $1) }) {
            let base = ODataIdentifier.sanitized(members[index].databaseName)
            var name = base
            var suffix = 2
            while taken.contains(name) {
                name = "\(base)_\(suffix)"
                suffix += 1
            }
            taken.insert(name)
            names[index] = name
            origins[index] = .sanitized(taken: name == base ? nil : base)
        }
    }
}
