/// Splits a SQL script into statements at `;` outside quotes and comments.
///
/// Used only for scripts that ship with Strata or that an operator applies (demo data, migrations),
/// never for client input: client SQL goes through the checked dialect in StrataCore.
enum SQLScript {
    static func statements(in script: String) -> [String] {
        var statements: [String] = []
        var current: [Character] = []
        var characters = Array(script)
        characters.append("\n")
        var i = 0
        func flush() {
            let statement = String(current).trimmingWhitespace()
            if !statement.isEmpty { statements.append(statement) }
            current.removeAll(keepingCapacity: true)
        }
        while i < characters.count {
            let c = characters[i]
            let next: Character? = i + 1 < characters.count ? characters[i + 1] : nil
            switch c {
            case "'", "\"":
                // Copy the quoted text; a doubled quote stays inside it.
                current.append(c)
                i += 1
                while i < characters.count {
                    current.append(characters[i])
                    if characters[i] == c {
                        if i + 1 < characters.count, characters[i + 1] == c {
                            current.append(c)
                            i += 2
                            continue
                        }
                        break
                    }
                    i += 1
                }
            case "-" where next == "-":
                while i < characters.count, characters[i] != "\n" { i += 1 }
                current.append("\n")
            case "/" where next == "*":
                i += 2
                while i + 1 < characters.count, !(characters[i] == "*" && characters[i + 1] == "/") { i += 1 }
                i += 1
                current.append(" ")
            case ";":
                flush()
            default:
                current.append(c)
            }
            i += 1
        }
        flush()
        return statements
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s = s.dropFirst() }
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}
