import Foundation
import StrataCore
import StrataDemo
import Testing

private typealias M = QueryTestModel

/// Limits loose enough that canonical text (which may add parentheses) always reads back.
private let roomy = QueryLimits(maxFilterDepth: 10_000, maxFilterNodes: 1_000_000, maxExpandDepth: 100,
                                maxExpandWidth: 1000, maxTop: .max, maxQueryStringLength: .max)

@Suite struct QueryFuzzTests {
    static let corpus = [
        "$filter=PersonCar/Car/make eq 'Ford' and personID gt 3",
        "$filter=substringof('Sam',lastName) or startswith(firstName,'B')&$orderby=lastName desc,firstName&$top=10&$skip=5",
        "$filter=createDate ge datetime'2009-11-01T00:00' and createDate lt datetime'2010-01-01T00:00:00.123'",
        "$filter=cost mul 2 add 1.5M gt hours div 3 and not (done eq false) or ticket eq guid'12345678-aaaa-bbbb-cccc-ddddeeeeffff'",
        "$filter=isof(description,'Edm.String') and cast(priority,'Edm.Int64') eq 1L and round(hours) eq 2d",
        "$select=firstName,PersonCar/*&$expand=PersonCar/Car,PersonCar/PersonCarMaintenance/Maintenance&$inlinecount=allpages",
        "$filter=slot lt time'PT13H20M' and scheduled gt datetimeoffset'2009-11-01T02:00:00%2B02:00' and photo eq X'0A1B'",
        "$filter=year(createDate) eq 2009 and month(createDate) eq 11 and day(createDate) eq 1 and hour(createDate) eq 0",
        "$filter=length(trim(concat(firstName,lastName))) gt indexof(tolower(ssn),'a') sub -5",
        "$filter=substring(replace(toupper(description),'A','B'),1,2) eq 'BC' and floor(cost) eq ceiling(weight)",
        "$orderby=PersonCar/Car/model,mileage desc&$skiptoken=abc&$format=json&custom=1",
        "$filter=weight eq 1.5E%2B10f or hours eq -INF or level eq -128 and count mod 7 eq 0 and time'PT99999999999999H' eq slot",
    ]

    static let vocabulary = [
        "eq", "ne", "gt", "ge", "lt", "le", "and", "or", "not", "add", "sub", "mul", "div", "mod", "-", "(", ")", ",", "/",
        "a", "personID", "firstName", "PersonCar", "PersonCar/Car/make", "'x'", "'", "''", "1", "1.5M", "1E", "null", "true",
        "length(", "substring(", "isof(", "cast(", "'Edm.Int32'", "Edm.Int32", "datetime'2009-11-01T00:00'", "datetime'",
        "INF", "-INF", "NaN", "X'0A'", "guid'", "$", "*", "asc", "desc", "%", "%2", "%ZZ", "+", "&", "=", "é", "\u{301}",
    ]

    /// Parses, binds on several entity types and reprints one raw query string: any outcome is fine except
    /// a crash or an error that is not a 400.
    static func survive(_ raw: String) -> Bool {
        let options: QueryOptions
        do {
            options = try QueryOptions(parsing: raw)
        } catch {
            #expect(error.status == 400, "\(raw) → \(error)")
            return false
        }
        for type in [M.person, M.personCarMaintenance, M.maintenance] {
            do {
                _ = try M.binder.bind(options, to: type)
            } catch {
                #expect(error.status == 400, "\(raw) bound on \(type.name) → \(error)")
            }
        }
        do {
            let again = try QueryOptions(parsing: options.queryString, limits: roomy)
            #expect(again.queryString == options.queryString, "\(raw)")
        } catch {
            Issue.record("the canonical form of \(raw), \(options.queryString), does not parse: \(error)")
        }
        return true
    }

    static func mutate(_ text: String, _ random: inout SplitMix64) -> String {
        var scalars = Array(text.unicodeScalars)
        for _ in 0..<random.int(1...5) {
            let position = scalars.isEmpty ? 0 : random.int(0...scalars.count)
            switch random.int(0...5) {
            case 0:
                scalars.insert(contentsOf: random.pick(vocabulary).unicodeScalars, at: position)
            case 1 where !scalars.isEmpty:
                let end = min(scalars.count, position + random.int(1...8))
                scalars.removeSubrange(min(position, end)..<end)
            case 2 where position < scalars.count:
                scalars[position] = random.pick(Array("'()/,$&=%+ -*.0aZ\u{301}é".unicodeScalars))
            case 3:
                scalars = Array(scalars.prefix(position))
            case 4 where !scalars.isEmpty:
                let start = random.int(0...(scalars.count - 1))
                let piece = scalars[start..<min(scalars.count, start + random.int(1...20))]
                scalars.insert(contentsOf: piece, at: position)
            default:
                scalars.insert(contentsOf: "'".unicodeScalars, at: position)
            }
        }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    /// Lets the process's other tasks run every 50 inputs: thousands of refused inputs in a row
    /// (each a thrown error, for which Swift Testing captures a backtrace) kept both cooperative
    /// threads busy for seconds in a full `swift test`, and every other test's tasks waited.
    static func yieldNow(_ iteration: Int) async {
        if iteration % 50 == 0 { await Task.yield() }
    }

    @Test func corpusIsValid() {
        for raw in Self.corpus.dropLast() {
            #expect(Self.survive(raw), "\(raw)")
        }
        // The last entry carries an out-of-range time: it must be a clean 400, not an overflow.
        #expect(errorMessage { () throws(ODataError) in try QueryOptions(parsing: Self.corpus.last!) }?
            .contains("time'PT99999999999999H' is not a valid time") == true)
    }

    @Test func mutatedQueries() async {
        var random = SplitMix64(seed: 0x5EED_0001)
        var parsed = 0
        for attempt in 0..<6000 {
            await Self.yieldNow(attempt)
            if Self.survive(Self.mutate(random.pick(Self.corpus), &random)) { parsed += 1 }
        }
        // Mutations must leave a good share parseable, or the binder and printer go untested.
        #expect(parsed > 600)
    }

    @Test func randomBytes() async {
        var random = SplitMix64(seed: 0x5EED_0002)
        for attempt in 0..<3000 {
            await Self.yieldNow(attempt)
            let bytes = (0..<random.int(0...120)).map { _ in UInt8(random.int(0...255)) }
            let text = String(decoding: bytes, as: UTF8.self)
            _ = Self.survive(text)
            _ = Self.survive("$filter=" + text)
            let escaped = bytes.map { String(format: "%%%02X", $0) }.joined()
            _ = Self.survive("$filter=" + escaped)
            _ = errorMessage { () throws(ODataError) in try parseFilter(text) }
        }
    }

    @Test func operatorSoup() async {
        var random = SplitMix64(seed: 0x5EED_0003)
        var parsed = 0
        for attempt in 0..<4000 {
            await Self.yieldNow(attempt)
            let words = (0..<random.int(1...14)).map { _ in random.pick(Self.vocabulary) }
            let option = random.pick(["$filter=", "$orderby=", "$select=", "$expand=", "$top=", "$filter="])
            if Self.survive(option + words.joined(separator: random.pick([" ", "", "+", "%20"]))) { parsed += 1 }
        }
        #expect(parsed > 100)
    }

    @Test func deepParenthesesAndLongChains() async {
        var random = SplitMix64(seed: 0x5EED_0004)
        for attempt in 0..<300 {
            await Self.yieldNow(attempt)
            let open = random.int(0...3000), close = random.int(0...3000)
            let text = String(repeating: random.pick(["(", "not ", "-", "length(", "isof("]), count: open) + "a eq 1"
                + String(repeating: ")", count: close)
            _ = Self.survive("$filter=" + text)
            _ = errorMessage { () throws(ODataError) in try parseFilter(text) }
            let chain = (0..<random.int(1...700)).map { _ in random.pick(["a eq 1", "personID", "-1", "(b)"]) }
                .joined(separator: " " + random.pick(["or", "and", "add", "eq"]) + " ")
            _ = errorMessage { () throws(ODataError) in try parseFilter(chain) }
        }
    }

    @Test func hugeNumbersAndUnbalancedQuotes() async {
        var random = SplitMix64(seed: 0x5EED_0005)
        for attempt in 0..<2000 {
            await Self.yieldNow(attempt)
            let digits = String((0..<random.int(1...400)).map { _ in random.pick(Array("0123456789")) })
            let number = random.pick(["", "-"]) + digits + random.pick(["", ".5", ".", "E", "E+999999", "E-999999", "E%2B5"])
                + random.pick(["", "L", "M", "m", "d", "f", "D", "F", "x"])
            _ = Self.survive("$filter=personID eq " + number)
            _ = Self.survive("$top=" + digits)
            _ = Self.survive("$skip=" + digits)
            let quotes = String(repeating: "'", count: random.int(1...7))
            let prefix = random.pick(["", "datetime", "guid", "X", "time", "datetimeoffset", "binary", "foo"])
            _ = Self.survive("$filter=firstName eq " + prefix + quotes + random.pick(["abc", "2009-11-01", "", "0A"]) + String(repeating: "'", count: random.int(0...7)))
        }
    }
}
