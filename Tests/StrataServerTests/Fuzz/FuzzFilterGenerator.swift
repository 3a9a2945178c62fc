import Foundation
import HTTPTypes
import StrataDemo

/// Typed random `$filter` expressions (with `$orderby`, `$top`, `$skip`, `$select`, `$expand`) over
/// the CarDealer sample, biased toward edges: extreme literals, arithmetic that overflows, functions
/// with odd arguments, deep nesting. A share is mutated byte-wise afterwards.
struct FuzzFilterGenerator {
    enum Kind: CaseIterable { case boolean, int, long, decimal, double, string, dateTime }

    struct EntitySet {
        var path: String
        var properties: [(String, Kind)]
        var navigation: [String]
    }

    static let sets = [
        EntitySet(path: "/cardealer/Person", properties: [("personID", .int), ("firstName", .string), ("lastName", .string),
                                                          ("ssn", .string), ("createDate", .dateTime)], navigation: ["PersonCar", "PersonCar/Car"]),
        EntitySet(path: "/cardealer/Car", properties: [("carID", .int), ("make", .string), ("model", .string),
                                                       ("manufactureDate", .dateTime), ("createStamp", .dateTime)], navigation: ["PersonCar"]),
        EntitySet(path: "/cardealer/Maintenance", properties: [("maintenanceID", .int), ("description", .string), ("price", .decimal),
                                                               ("createStamp", .dateTime)], navigation: []),
    ]

    static let literals: [Kind: [String]] = [
        .boolean: ["true", "false", "null"],
        .int: ["0", "1", "-1", "7", "2147483647", "-2147483648", "2147483648", "null"],
        .long: ["0L", "9223372036854775807L", "-9223372036854775808L", "4611686018427387904L", "3000000000L"],
        .decimal: ["0M", "1.5M", "-79228162514264337593543950335M", "0.00000000000000000001M", "99999999999999999999.99M"],
        .double: ["0.0", "1E308", "-1E308", "4.9E-324", "1.5d", "NaN", "INF", "-INF", "1E309"],
        .string: ["''", "'Ford'", "'O''Brien'", "'%_'", "'😀'", "'é'", "'\\'", "'\(String(repeating: "x", count: 300))'", "' '"],
        .dateTime: ["datetime'2009-11-01T00:00'", "datetime'0001-01-01T00:00:00'", "datetime'9999-12-31T23:59:59.999'",
                    "datetime'2016-02-29T12:00:00'", "datetimeoffset'2009-11-01T00:00:00+14:00'"],
    ]

    mutating func request(_ random: inout SplitMix64) -> FuzzRequest {
        let set = random.pick(Self.sets)
        var options: [String] = ["$filter=" + expression(.boolean, set, depth: 0, &random)]
        if random.chance(40) {
            let keys = (0..<(1 + random.below(3))).map { _ in random.pick(set.properties).0 + (random.chance(50) ? " desc" : "") }
            options.append("$orderby=" + keys.joined(separator: ","))
        }
        if random.chance(30) { options.append("$top=" + random.pick(["0", "1", "5", "10000", "10001", "-1", "2147483648"])) }
        if random.chance(20) { options.append("$skip=" + random.pick(["0", "3", "9223372036854775807", "-5"])) }
        if random.chance(20), !set.navigation.isEmpty { options.append("$expand=" + random.pick(set.navigation)) }
        if random.chance(20) { options.append("$select=" + random.pick(set.properties).0) }
        if random.chance(15) { options.append("$inlinecount=allpages") }
        var query = options.joined(separator: "&")
        if random.chance(20) { query = QueryFuzzTests.mutate(query, &random) }
        let encoded = query.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(CharacterSet(charactersIn: "+#"))) ?? ""
        let path = random.chance(10) ? set.path + "/$count" : set.path
        return FuzzRequest(method: .get, uri: path + "?" + encoded)
    }

    func expression(_ kind: Kind, _ set: EntitySet, depth: Int, _ random: inout SplitMix64) -> String {
        if depth > 4 || random.chance(25) { return leaf(kind, set, &random) }
        switch kind {
        case .boolean:
            switch random.below(7) {
            case 0: return "(\(expression(.boolean, set, depth: depth + 1, &random)) \(random.pick(["and", "or"])) \(expression(.boolean, set, depth: depth + 1, &random)))"
            case 1: return "not (\(expression(.boolean, set, depth: depth + 1, &random)))"
            case 2:
                let compared = random.pick(Kind.allCases.filter { $0 != .boolean })
                return "\(expression(compared, set, depth: depth + 1, &random)) \(random.pick(["eq", "ne", "gt", "ge", "lt", "le"])) \(expression(compared, set, depth: depth + 1, &random))"
            case 3: return "\(random.pick(["startswith", "endswith", "substringof"]))(\(expression(.string, set, depth: depth + 1, &random)),\(expression(.string, set, depth: depth + 1, &random)))"
            case 4 where !set.navigation.isEmpty: return "PersonCar/any()"
            case 5: return "isof('\(random.pick(["Edm.Int32", "Edm.String", "edmexampleModel.Person", "x"]))')"
            default: return "\(expression(.string, set, depth: depth + 1, &random)) eq null"
            }
        case .int, .long, .decimal, .double:
            switch random.below(6) {
            case 0, 1: return "(\(expression(kind, set, depth: depth + 1, &random)) \(random.pick(["add", "sub", "mul", "div", "mod"])) \(expression(random.pick([kind, .int, .long]), set, depth: depth + 1, &random)))"
            case 2: return "-(\(expression(kind, set, depth: depth + 1, &random)))"
            case 3: return "\(random.pick(["length", "indexof"]))(\(expression(.string, set, depth: depth + 1, &random))\(random.chance(50) ? "," + expression(.string, set, depth: depth + 1, &random) : ""))"
            case 4: return "\(random.pick(["year", "month", "day", "hour", "minute", "second"]))(\(expression(.dateTime, set, depth: depth + 1, &random)))"
            default: return "\(random.pick(["round", "floor", "ceiling"]))(\(expression(random.pick([Kind.decimal, .double]), set, depth: depth + 1, &random)))"
            }
        case .string:
            switch random.below(5) {
            case 0: return "substring(\(expression(.string, set, depth: depth + 1, &random)),\(expression(random.pick([Kind.int, .long]), set, depth: depth + 1, &random))\(random.chance(50) ? "," + expression(.int, set, depth: depth + 1, &random) : ""))"
            case 1: return "\(random.pick(["tolower", "toupper", "trim"]))(\(expression(.string, set, depth: depth + 1, &random)))"
            case 2: return "concat(\(expression(.string, set, depth: depth + 1, &random)),\(expression(.string, set, depth: depth + 1, &random)))"
            case 3: return "replace(\(expression(.string, set, depth: depth + 1, &random)),\(expression(.string, set, depth: depth + 1, &random)),\(expression(.string, set, depth: depth + 1, &random)))"
            default: return "cast(\(expression(random.pick(Kind.allCases), set, depth: depth + 1, &random)),'Edm.String')"
            }
        case .dateTime:
            return leaf(kind, set, &random)
        }
    }

    func leaf(_ kind: Kind, _ set: EntitySet, _ random: inout SplitMix64) -> String {
        let properties = set.properties.filter { $0.1 == kind || (kind == .long && $0.1 == .int) }
        if !properties.isEmpty, random.chance(50) { return random.pick(properties).0 }
        return random.pick(Self.literals[kind] ?? ["null"])
    }
}
