import Foundation
import HTTPTypes
import StrataDemo

/// Typed random V4 queries over the CarDealer sample: V4's literals (bare dates and times, durations,
/// GUIDs, `INF`), `contains`, `in`, lambdas over collection navigation (nested, with outer and
/// out-of-scope variables), `Nav/$count`, the date and time functions, `cast`/`isof`, paths through
/// single-valued navigation, `$expand` with nested options, `$compute`, `$search` and `$count=true`
/// — valid and broken, and a share mutated byte-wise afterwards.
struct FuzzFilterV4Generator {
    typealias Kind = FuzzFilterGenerator.Kind

    static let v4: HTTPFields = [HTTPField.Name("OData-MaxVersion")!: "4.0"]

    static let literals: [Kind: [String]] = [
        .boolean: ["true", "false", "null"],
        .int: ["0", "1", "-1", "7", "2147483647", "-2147483648", "2147483648", "null"],
        .long: ["9223372036854775807", "-9223372036854775808", "9223372036854775808", "3000000000"],
        .decimal: ["0", "1.5", "-79228162514264337593543950335", "0.00000000000000000001", "99999999999999999999.99"],
        .double: ["0.0", "1E308", "-1E308", "4.9E-324", "NaN", "INF", "-INF", "1E309", "1e5"],
        .string: ["''", "'Ford'", "'O''Brien'", "'%_'", "'😀'", "'é'", "'\\'", "'\(String(repeating: "x", count: 300))'", "' '"],
        .dateTime: ["2009-11-01T00:00:00Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z", "2016-02-29T12:00:00+14:00",
                    "2009-11-01", "2009-02-30", "12:30:00", "25:00:00", "now()", "maxdatetime()", "mindatetime()",
                    "duration'PT1H'", "datetime'2009-11-01T00:00'"],
    ]

    static let guids = ["01234567-89ab-cdef-0123-456789abcdef", "0123456789abcdef", "'01234567-89ab-cdef-0123-456789abcdef'"]

    mutating func request(_ random: inout SplitMix64) -> FuzzRequest {
        let set = random.pick(FuzzFilterGenerator.sets)
        var options: [String] = []
        if random.chance(85) { options.append("$filter=" + expression(.boolean, set, depth: 0, scope: [], &random)) }
        if random.chance(35) {
            let keys = (0..<(1 + random.below(3))).map { _ in
                random.pick(set.properties.map(\.0) + ["PersonCar/$count", "nothing", "PersonCar/Car/make"]) + (random.chance(50) ? " desc" : "")
            }
            options.append("$orderby=" + keys.joined(separator: ","))
        }
        if random.chance(30) { options.append("$top=" + random.pick(["0", "1", "5", "10000", "10001", "-1"])) }
        if random.chance(20) { options.append("$skip=" + random.pick(["0", "3", "9223372036854775807", "-5"])) }
        if random.chance(30), !set.navigation.isEmpty { options.append("$expand=" + expand(set, &random)) }
        if random.chance(20) { options.append("$select=" + random.pick(set.properties).0) }
        if random.chance(20) { options.append("$count=" + random.pick(["true", "false", "maybe"])) }
        if random.chance(15) { options.append("$compute=" + expression(random.pick([Kind.int, .string, .decimal]), set, depth: 2, scope: [], &random) + " as C") }
        if random.chance(15) { options.append("$search=" + random.pick(["blue", "NOT an", "(a OR b) c", "\"an el\"", "AND", "\"open", "()", "'x'"])) }
        if random.chance(5) { options.append(random.pick(["$levels=2", "$inlinecount=allpages", "$index=1", "$apply=groupby((lastName))"])) }
        var query = options.joined(separator: "&")
        if random.chance(20) { query = QueryFuzzTests.mutate(query, &random) }
        let encoded = query.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(CharacterSet(charactersIn: "+#"))) ?? ""
        let path = random.chance(10) ? set.path + "/$count" : set.path
        return FuzzRequest(method: .get, uri: path + "?" + encoded, headers: Self.v4)
    }

    /// `Nav`, `Nav/Car`, or `Nav(...)` with nested options, sometimes nested again.
    func expand(_ set: FuzzFilterGenerator.EntitySet, _ random: inout SplitMix64) -> String {
        let navigation = random.pick(set.navigation)
        guard random.chance(60) else { return navigation }
        var parts: [String] = []
        if random.chance(50) { parts.append("$filter=" + random.pick(["carID gt 2", "Car/make eq 'Ford'", "nothing eq 1", "personID eq $it/personID", "contains(Car/model,'a')"])) }
        if random.chance(40) { parts.append("$top=" + random.pick(["0", "1", "-1", "99999999999"])) }
        if random.chance(30) { parts.append("$skip=" + random.pick(["1", "x"])) }
        if random.chance(30) { parts.append("$orderby=" + random.pick(["carID desc", "Car/make", "nothing"])) }
        if random.chance(30) { parts.append("$count=" + random.pick(["true", "false", "1"])) }
        if random.chance(30) { parts.append("$select=" + random.pick(["carID", "personCarID", "nothing", "*"])) }
        if random.chance(30) { parts.append("$expand=" + random.pick(["Car", "Car($select=make)", "Car($expand=PersonCar($top=1))", "Nothing", "Car($levels=3)"])) }
        if random.chance(10) { parts.append(random.pick(["$search=x", "$apply=identity", "$bogus=1", ""])) }
        let first = navigation.split(separator: "/").first.map(String.init) ?? navigation
        return first + "(" + parts.joined(separator: random.chance(90) ? ";" : ",") + (random.chance(95) ? ")" : "")
    }

    func expression(_ kind: Kind, _ set: FuzzFilterGenerator.EntitySet, depth: Int, scope: [String], _ random: inout SplitMix64) -> String {
        if depth > 4 || random.chance(25) { return leaf(kind, set, scope: scope, &random) }
        switch kind {
        case .boolean:
            switch random.below(10) {
            case 0: return "(\(expression(.boolean, set, depth: depth + 1, scope: scope, &random)) \(random.pick(["and", "or"])) \(expression(.boolean, set, depth: depth + 1, scope: scope, &random)))"
            case 1: return "not (\(expression(.boolean, set, depth: depth + 1, scope: scope, &random)))"
            case 2:
                let compared = random.pick(Kind.allCases.filter { $0 != .boolean })
                return "\(expression(compared, set, depth: depth + 1, scope: scope, &random)) \(random.pick(["eq", "ne", "gt", "ge", "lt", "le", "has"])) \(expression(compared, set, depth: depth + 1, scope: scope, &random))"
            case 3: return "\(random.pick(["contains", "startswith", "endswith", "substringof"]))(\(expression(.string, set, depth: depth + 1, scope: scope, &random)),\(expression(.string, set, depth: depth + 1, scope: scope, &random)))"
            case 4:
                // A lambda: its variable is in scope inside; sometimes one that is not, or a reused name.
                let variable = random.pick(["pc", "x", "o", "$it"] + scope)
                let navigation = random.pick(["PersonCar", "Car/PersonCar", "firstName", "Nothing"] + scope.map { "\($0)/Car/PersonCar" })
                let body = random.chance(15) ? "" : expression(.boolean, set, depth: depth + 1, scope: scope + [variable], &random)
                return "\(navigation)/\(random.pick(["any", "all", "none"]))(\(body.isEmpty ? "" : "\(variable):\(body)"))"
            case 5: return "\(random.pick(["PersonCar/$count", "Car/PersonCar/$count", "firstName/$count"])) \(random.pick(["gt", "eq"])) \(random.pick(["0", "1", "'a'"]))"
            case 6:
                let compared = random.pick(Kind.allCases)
                let list = (0..<random.below(4)).map { _ in leaf(compared, set, scope: scope, &random) }
                return "\(expression(compared, set, depth: depth + 1, scope: scope, &random)) in (\(list.joined(separator: ",")))"
            case 7: return "isof(\(random.chance(70) ? leaf(random.pick(Kind.allCases), set, scope: scope, &random) + "," : "")'\(random.pick(["Edm.Int32", "Edm.String", "Edm.DateTimeOffset", "Edm.Guid", "edmexampleModel.Person", "x"]))')"
            case 8: return "\(random.pick(Self.guids)) eq \(random.pick(Self.guids))"
            default: return "\(expression(.string, set, depth: depth + 1, scope: scope, &random)) eq null"
            }
        case .int, .long, .decimal, .double:
            switch random.below(7) {
            case 0, 1: return "(\(expression(kind, set, depth: depth + 1, scope: scope, &random)) \(random.pick(["add", "sub", "mul", "div", "divby", "mod"])) \(expression(random.pick([kind, .int, .long]), set, depth: depth + 1, scope: scope, &random)))"
            case 2: return "-(\(expression(kind, set, depth: depth + 1, scope: scope, &random)))"
            case 3: return "\(random.pick(["length", "indexof"]))(\(expression(.string, set, depth: depth + 1, scope: scope, &random))\(random.chance(50) ? "," + expression(.string, set, depth: depth + 1, scope: scope, &random) : ""))"
            case 4: return "\(random.pick(["year", "month", "day", "hour", "minute", "second", "fractionalseconds", "totaloffsetminutes", "totalseconds"]))(\(expression(.dateTime, set, depth: depth + 1, scope: scope, &random)))"
            case 5: return "cast(\(expression(random.pick(Kind.allCases), set, depth: depth + 1, scope: scope, &random)),\(random.pick(["Edm.Int32", "Edm.Int64", "Edm.Decimal", "Edm.Double", "Edm.Byte", "Edm.Guid"])))"
            default: return "\(random.pick(["round", "floor", "ceiling"]))(\(expression(random.pick([Kind.decimal, .double]), set, depth: depth + 1, scope: scope, &random)))"
            }
        case .string:
            switch random.below(5) {
            case 0: return "substring(\(expression(.string, set, depth: depth + 1, scope: scope, &random)),\(expression(random.pick([Kind.int, .long]), set, depth: depth + 1, scope: scope, &random))\(random.chance(50) ? "," + expression(.int, set, depth: depth + 1, scope: scope, &random) : ""))"
            case 1: return "\(random.pick(["tolower", "toupper", "trim"]))(\(expression(.string, set, depth: depth + 1, scope: scope, &random)))"
            case 2: return "concat(\(expression(.string, set, depth: depth + 1, scope: scope, &random)),\(expression(random.pick(Kind.allCases), set, depth: depth + 1, scope: scope, &random)))"
            case 3: return "\(random.pick(["PersonCar/Car/make", "Car/make", "pc/Car/make", "$it/firstName"] + scope.map { "\($0)/Car/model" }))"
            default: return "cast(\(expression(random.pick(Kind.allCases), set, depth: depth + 1, scope: scope, &random)),'Edm.String')"
            }
        case .dateTime:
            switch random.below(3) {
            case 0: return "\(random.pick(["date", "time"]))(\(leaf(.dateTime, set, scope: scope, &random)))"
            default: return leaf(kind, set, scope: scope, &random)
            }
        }
    }

    func leaf(_ kind: Kind, _ set: FuzzFilterGenerator.EntitySet, scope: [String], _ random: inout SplitMix64) -> String {
        let properties = set.properties.filter { $0.1 == kind || (kind == .long && $0.1 == .int) }
        if !properties.isEmpty, random.chance(50) { return random.pick(properties).0 }
        if let variable = scope.last, random.chance(30) { return "\(variable)/\(random.pick(["personID", "carID", "Car/make", "nothing"]))" }
        return random.pick(Self.literals[kind] ?? ["null"])
    }
}
