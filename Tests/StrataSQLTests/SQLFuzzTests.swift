import Foundation
import StrataCore
import StrataSQL
import StrataDemo
import Testing

@Suite struct SQLFuzzTests {
    static let validQueries = [
        "SELECT * FROM Person",
        "SELECT p.firstName, c.make AS brand FROM Person p JOIN PersonCar pc ON pc.personID = p.personID LEFT JOIN Car c ON c.carID = pc.carID WHERE c.make LIKE 'F%' ORDER BY 1 LIMIT 5",
        "SELECT lastName, COUNT(*) AS n FROM Person GROUP BY lastName HAVING COUNT(*) > :min ORDER BY n DESC NULLS LAST",
        "SELECT CASE WHEN carID BETWEEN 1 AND 3 THEN 'low' ELSE UPPER(make) || '!' END AS band, carID / 2 AS half FROM Car WHERE carID IN (1, 2, :id)",
        "SELECT YEAR(createDate) AS y, ROUND(AVG(personID), 2) AS a FROM Person WHERE createDate >= '2009-01-01' GROUP BY YEAR(createDate)",
        "SELECT DISTINCT SUBSTR(model, 1, 2) AS s FROM Car WHERE NOT (carID % 2 = 0 OR model IS NULL) ORDER BY s LIMIT :n OFFSET 1;",
        "SELECT COALESCE(ssn, 'none') AS ssn, CAST(personID AS TEXT) || '-' || LENGTH(lastName) AS tag FROM Person WHERE firstName NOT LIKE '%x!%' ESCAPE '!'",
    ]

    static let vocabulary = [
        "SELECT", "DISTINCT", "FROM", "WHERE", "GROUP", "BY", "HAVING", "ORDER", "LIMIT", "OFFSET", "JOIN", "LEFT", "INNER", "OUTER", "ON", "AS",
        "AND", "OR", "NOT", "IS", "NULL", "IN", "BETWEEN", "LIKE", "ESCAPE", "CASE", "WHEN", "THEN", "ELSE", "END", "CAST", "INTEGER", "TEXT",
        "TRUE", "FALSE", "ASC", "DESC", "NULLS", "FIRST", "LAST", "UNION", "WITH", "DROP", "INSERT", "PRAGMA", "ATTACH", "EXISTS", "OVER",
        "COUNT", "SUM", "AVG", "MIN", "MAX", "LOWER", "UPPER", "SUBSTR", "ROUND", "COALESCE", "YEAR", "SECOND", "pg_sleep", "load_extension",
        "Person", "Car", "PersonCar", "p", "c", "pc", "personID", "firstName", "createDate", "carID", "make", "sqlite_master", "pg_catalog",
        "\"Person\"", "\"first\"\"Name\"", "p.personID", "c.make", "*", "p.*", ",", ".", "(", ")", ";", "+", "-", "*", "/", "%", "||", "=", "<>",
        "!=", "<", "<=", ">", ">=", "0", "1", "-1", "42", "2147483648", "99999999999999999999", "1.5", ".5", "1e3", "1e999", "'x'", "''", "'it''s'",
        "'2009-01-01'", ":id", ":n", ":min", ":missing", "?", "$1", "$$", "::", "--", "/*", "*/", "'", "\"", "`", "[", "\\", "#", "E'x'", "X'41'",
        "\u{2019}", "\u{FF07}", "\u{0}", "\u{202E}", "é", "\t", "\n",
    ]

    static let parameters: [String: ODataValue] = ["id": .int32(3), "n": .int64(4), "min": .int32(1)]

    /// Checks one input: either it is refused with a located 400, or it is accepted and emits
    /// well-formed SQL for both dialects whose placeholders match its binds.
    static func exercise(_ sql: String) -> Bool {
        let statement: SQLCheckedStatement
        do {
            statement = try ClientSQL.check(sql, catalog: carDealerCatalog, parameters: parameters)
        } catch {
            #expect(error.status == 400, "\(sql.debugDescription) → \(error)")
            #expect(error.message.contains(" at line "), "\(sql.debugDescription) → \(error)")
            return false
        }
        do {
            let sqlite = try statement.emit(for: .sqlite)
            #expect(sqlite.sql.filter { $0 == "?" }.count == sqlite.binds.count, "\(sql.debugDescription) → \(sqlite.sql)")
            let postgres = try statement.emit(for: .postgres)
            let numbers = Set(postgres.sql.split(separator: "$").dropFirst().compactMap { Int($0.prefix { $0.isNumber }) })
            #expect(numbers == Set(postgres.binds.indices.map { $0 + 1 }), "\(sql.debugDescription) → \(postgres.sql)")
            for emitted in [sqlite.sql, postgres.sql] {
                #expect(!emitted.contains("--") && !emitted.contains("/*") && !emitted.contains(";"), "\(sql.debugDescription) → \(emitted)")
            }
            #expect(statement.columns.count >= 1)
        } catch {
            Issue.record("\(sql.debugDescription) checked but did not emit: \(error)")
        }
        return true
    }

    /// Lets the process's other tasks run every 50 inputs. Each refusal is a thrown error, for
    /// which Swift Testing captures a backtrace: thousands of them kept both cooperative threads
    /// busy for 15 s in a full `swift test`, and every other test's tasks waited (their timeouts
    /// fired).
    static func yieldNow(_ iteration: Int) async {
        if iteration % 50 == 0 { await Task.yield() }
    }

    @Test func seedQueriesAreAccepted() {
        for query in Self.validQueries { #expect(Self.exercise(query), "\(query)") }
    }

    @Test func randomTokenSequences() async {
        var random = SplitMix64(seed: 0x5EED_0001)
        var accepted = 0
        for attempt in 0..<3000 {
            await Self.yieldNow(attempt)
            let count = Int.random(in: 1...30, using: &random)
            var parts: [String] = []
            for _ in 0..<count { parts.append(Self.vocabulary.randomElement(using: &random)!) }
            if Bool.random(using: &random) { parts.insert("SELECT", at: 0) }
            if Self.exercise(parts.joined(separator: Bool.random(using: &random) ? " " : "")) { accepted += 1 }
        }
        // Random token soup is nearly always refused; what matters is that nothing crashed.
        #expect(accepted < 300)
    }

    @Test func mutatedValidQueries() async {
        var random = SplitMix64(seed: 0x5EED_0002)
        var accepted = 0
        for queryIndex in 0..<3000 {
            await Self.yieldNow(queryIndex)
            var tokens = Self.validQueries[queryIndex % Self.validQueries.count].split(separator: " ").map(String.init)
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let position = Int.random(in: 0..<tokens.count, using: &random)
                switch Int.random(in: 0..<5, using: &random) {
                case 0: tokens.remove(at: position)
                case 1: tokens.insert(Self.vocabulary.randomElement(using: &random)!, at: position)
                case 2: tokens[position] = Self.vocabulary.randomElement(using: &random)!
                case 3: tokens.insert(tokens[position], at: position)
                default: tokens.swapAt(position, Int.random(in: 0..<tokens.count, using: &random))
                }
                if tokens.isEmpty { tokens = ["SELECT"] }
            }
            if Self.exercise(tokens.joined(separator: " ")) { accepted += 1 }
        }
        // Some mutations keep a query valid (75 of 3000 with this seed), so acceptance paths are fuzzed too.
        #expect(accepted > 50)
    }

    @Test func randomCharacterEdits() async {
        var random = SplitMix64(seed: 0x5EED_0003)
        let alphabet = Array("abcXYZ019 _'\"();,.*+-/%|=<>!?:$#@`[]{}\\~^&\t\n\r") + ["\u{0}", "\u{7F}", "\u{2019}", "\u{FF1B}", "\u{1F600}", "é"]
        for index in 0..<2000 {
            await Self.yieldNow(index)
            var characters = Array(Self.validQueries[index % Self.validQueries.count])
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let position = Int.random(in: 0...characters.count, using: &random)
                if Bool.random(using: &random) || characters.isEmpty {
                    characters.insert(alphabet.randomElement(using: &random)!, at: position)
                } else {
                    characters.remove(at: min(position, characters.count - 1))
                }
            }
            _ = Self.exercise(String(characters))
        }
    }

    @Test func randomBytes() async {
        var random = SplitMix64(seed: 0x5EED_0004)
        for attempt in 0..<1000 {
            await Self.yieldNow(attempt)
            let bytes = (0..<Int.random(in: 0...200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            _ = Self.exercise("SELECT " + String(decoding: bytes, as: UTF8.self))
            _ = Self.exercise(String(decoding: bytes, as: UTF8.self))
        }
    }
}
