import Foundation
import HTTPTypes
import StrataCore
import StrataDemo
import StrataSQL

/// Random `$sql` queries over the CarDealer sample in Strata's SQL dialect: joins (sometimes on
/// nothing), arithmetic at the edges of the integer range, functions with odd arguments, casts,
/// aggregates, parameters of every kind; a share mutated byte-wise.
struct FuzzSQLGenerator {
    struct Table {
        var name: String
        var integers: [String]
        var texts: [String]
        var dates: [String]
    }

    static let tables = [
        Table(name: "Person", integers: ["personID"], texts: ["firstName", "lastName", "ssn"], dates: ["createDate"]),
        Table(name: "Car", integers: ["carID"], texts: ["make", "model"], dates: ["manufactureDate", "createStamp"]),
        Table(name: "PersonCar", integers: ["personCarID", "personID", "carID"], texts: [], dates: ["createStamp"]),
        Table(name: "Maintenance", integers: ["maintenanceID"], texts: ["description"], dates: ["createStamp"]),
    ]
    static let integers = ["0", "1", "-1", "2147483647", "2147483648", "9223372036854775807", "-9223372036854775808", "1e3", ":i", ":l"]
    static let texts = ["''", "'a'", "'O''Brien'", "'%'", "'😀'", ":s", "NULL"]

    func request(_ random: inout SplitMix64) -> FuzzRequest {
        var sql = query(&random)
        if random.chance(15) { sql = DataTableSQLFuzzTests.mutate(sql, &random) }
        let parameters: [String: ODataValue] = [
            "i": random.pick([.int32(0), .int32(Int32.max), .int64(Int64.min), .double(1e308), .string("7"), .null]),
            "l": random.pick([.int64(Int64.max), .int64(-1), .decimal(Decimal(string: "1e30")!), .boolean(true)]),
            "s": random.pick([.string("x'--"), .string(String(repeating: "é", count: 500)), .null, .int32(3)]),
        ]
        return FuzzRequest(method: .post, uri: "/cardealer/$sql", headers: [.contentType: "application/json"],
                           body: DataTableQuery(sql: sql, parameters: parameters).jsonBytes)
    }

    func query(_ random: inout SplitMix64) -> String {
        let first = random.pick(Self.tables)
        var sources = [(first, "a")]
        var sql = " FROM \(first.name) a"
        for alias in ["b", "c"].prefix(random.below(3)) {
            let table = random.pick(Self.tables)
            let left = random.pick(sources)
            let condition = random.chance(70)
                ? "\(alias).\(random.pick(table.integers)) = \(left.1).\(random.pick(left.0.integers))"
                : random.pick(["1=1", "\(alias).\(random.pick(table.integers)) > \(left.1).\(random.pick(left.0.integers))"])
            sql += " \(random.pick(["JOIN", "LEFT JOIN"])) \(table.name) \(alias) ON \(condition)"
            sources.append((table, alias))
        }
        if random.chance(60) { sql += " WHERE " + condition(sources, depth: 0, &random) }
        let aggregate = random.chance(25)
        let items: [String]
        if aggregate {
            items = [random.pick(["COUNT(*)", "SUM(a.\(first.integers[0]))", "MAX(a.\(first.integers[0]) * 2)", "AVG(a.\(first.integers[0]))", "MIN(LENGTH(a.\(first.texts.first ?? first.integers[0])))"]) + " AS v"]
        } else {
            items = (0..<(1 + random.below(3))).enumerated().map { "\(expression(sources, depth: 0, &random)) AS c\($0.offset)" }
        }
        sql = "SELECT " + (random.chance(10) && !aggregate ? "DISTINCT " : "") + items.joined(separator: ", ") + sql
        if !aggregate, random.chance(30) { sql += " ORDER BY \(random.pick(["1", "1 DESC", "1 NULLS LAST"]))" }
        if random.chance(50) { sql += " LIMIT \(random.pick(["0", "1", "10", "10000", ":i"]))" }
        return sql
    }

    func expression(_ sources: [(Table, String)], depth: Int, _ random: inout SplitMix64) -> String {
        let (table, alias) = random.pick(sources)
        if depth > 3 || random.chance(30) {
            return random.chance(50) ? "\(alias).\(random.pick(table.integers + table.texts + table.dates))" : random.pick(Self.integers + Self.texts)
        }
        let a = expression(sources, depth: depth + 1, &random), b = expression(sources, depth: depth + 1, &random)
        switch random.below(10) {
        case 0, 1: return "(\(a) \(random.pick(["+", "-", "*", "/", "%"])) \(b))"
        case 2: return "-(\(a))"
        case 3, 4: return call(sources, depth: depth, &random)
        case 5: return "CAST(\(a) AS \(random.pick(["INTEGER", "TEXT", "DOUBLE", "DECIMAL"])))"
        case 6: return "\(random.pick(["YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND"]))(\(random.chance(70) ? alias + "." + (table.dates.first ?? "x") : "NULL"))"
        case 7: return "COALESCE(\(a), \(b))"
        case 8: return "CASE WHEN \(condition(sources, depth: depth + 1, &random)) THEN \(a) ELSE \(b) END"
        default: return "(\(a) || \(b))"
        }
    }

    /// A call of any scalar function of the dialect's table (``SQLFunction``), with as many
    /// arguments as it takes, each any expression: columns, literals, parameters, arithmetic,
    /// other calls, NULL. (Positions drawn only from literals once missed `SUBSTR(s, 1 + 1)`,
    /// which PostgreSQL refused.)
    func call(_ sources: [(Table, String)], depth: Int, _ random: inout SplitMix64) -> String {
        let function = random.pick(Self.scalarFunctions)
        let count = function.arity.lowerBound + random.below(min(function.arity.count, 3))
        let arguments = (0..<count).map { _ in
            random.chance(20) ? random.pick(["1 + 1", "0 - 1", ":i + 0", "NULL", "-(2)"]) : expression(sources, depth: depth + 1, &random)
        }
        return "\(function == .substr && random.chance(30) ? "SUBSTRING" : function.rawValue)(\(arguments.joined(separator: ", ")))"
    }

    static let scalarFunctions = SQLFunction.allCases.filter { !$0.isAggregate }

    func condition(_ sources: [(Table, String)], depth: Int, _ random: inout SplitMix64) -> String {
        let a = expression(sources, depth: depth + 1, &random), b = expression(sources, depth: depth + 1, &random)
        switch random.below(7) {
        case 0: return "\(a) \(random.pick(["=", "<>", "<", ">=", "!="])) \(b)"
        case 1 where depth < 3: return "(\(condition(sources, depth: depth + 1, &random)) \(random.pick(["AND", "OR"])) \(condition(sources, depth: depth + 1, &random)))"
        case 2: return "\(a) IS \(random.chance(50) ? "NOT " : "")NULL"
        case 3: return "\(a) \(random.chance(30) ? "NOT " : "")LIKE \(random.pick(Self.texts))"
        case 4: return "\(a) IN (\(b), \(random.pick(Self.integers)))"
        case 5: return "\(a) BETWEEN \(random.pick(Self.integers)) AND \(random.pick(Self.integers))"
        default: return "NOT (\(a) = \(b))"
        }
    }
}
