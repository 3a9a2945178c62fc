import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StrataCore
@testable import StrataSQL
import Testing

/// Every function of the client SQL dialect and of `$filter`, called with every kind of argument
/// the checker accepts — columns of each type, literals, arithmetic, parameters, casts, other
/// functions' results and NULL — on SQLite and PostgreSQL side by side. A call the checker accepts
/// must run on both and give the same values; one it refuses must be refused on both, with a 4xx.
///
/// The calls are generated from the function tables (``SQLFunction``, ``QueryFunction``), so a new
/// function or a new kind of argument is tried without anyone writing its cases. (A hostile probe
/// found `SUBSTR('abc', 1 + 1)` and `ROUND(1.25, 1 + 0)` answering 500 on PostgreSQL only: the
/// checker typed `1 + 1` as Edm.Int32, the emitter wrote it as `bigint`, and PostgreSQL's `substr`
/// takes `integer`.)
@Suite("Functions × argument types on both databases")
struct FunctionArgumentTests {
    /// A table with a column of every type, rows with small, large, negative and NULL values.
    static let service = TestService(name: "args") { backend in
        let types = backend == .sqlite
            ? (int16: "SMALLINT", real: "REAL", double: "DOUBLE", decimal: "DECIMAL(12,2)", dateTime: "DATETIME", offset: "DATETIMEOFFSET", binary: "BLOB")
            : (int16: "SMALLINT", real: "REAL", double: "DOUBLE PRECISION", decimal: "NUMERIC(12,2)", dateTime: "TIMESTAMP(3)", offset: "TIMESTAMPTZ", binary: "BYTEA")
        return ["""
            CREATE TABLE "T" ("id" INTEGER PRIMARY KEY, "small" \(types.int16), "count" INTEGER, "big" BIGINT,
              "price" \(types.decimal), "ratio" \(types.double), "single" \(types.real), "name" VARCHAR(40), "flag" BOOLEAN,
              "born" \(types.dateTime), "seen" \(types.offset), "alarm" TIME, "uid" UUID, "data" \(types.binary));
            INSERT INTO "T" ("id", "small", "count", "big", "price", "ratio", "single", "name", "flag", "born", "seen", "alarm", "uid") VALUES
            (1, 3, 10, 10000000000, 12.50, 0.5, 0.25, 'Alpha', TRUE, '2009-11-01 13:20:05.000', '2009-11-01 02:00:00+02:00', '13:20:00', 'aaaaaaaa-0000-0000-0000-000000000001'),
            (2, -2, -3, -5, -0.99, -2.25, -1.5, 'beta gamma', FALSE, '2010-06-15 00:00:00.000', '2010-06-15 12:30:45+00:00', '08:00:30', 'aaaaaaaa-0000-0000-0000-000000000002'),
            (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
            (4, 0, 0, 0, 0, 0.0, 0.0, '', TRUE, '2000-02-29 23:59:59.999', '2000-02-29 23:59:59+00:00', '00:00:00', 'aaaaaaaa-0000-0000-0000-000000000004');
            """]
    }

    // MARK: $sql

    /// An argument of a generated call: its text, and the type the checker gives it (nil: NULL).
    struct Argument: Sendable {
        var sql: String
        var type: EDMPrimitiveType?
    }

    /// The parameters every generated query is sent with (JSON numbers are Int64, decimal or double).
    static let parameters: [String: ODataValue] = [
        "i": .int64(2), "huge": .int64(3_000_000_000), "dec": .decimal(Decimal(string: "1.25")!), "dbl": .double(1.5),
        "s": .string("abc"), "b": .boolean(true), "nul": .null,
    ]

    /// Every kind of argument: a column of each type, literals, arithmetic (which is 64-bit on both
    /// databases), negation, parameters, casts, results of other functions, CASE, and NULL.
    static let arguments: [Argument] = {
        let columns: [(String, EDMPrimitiveType)] = [
            ("small", .int16), ("count", .int32), ("big", .int64), ("price", .decimal), ("ratio", .double), ("single", .single),
            ("name", .string), ("flag", .boolean), ("born", .dateTime), ("seen", .dateTimeOffset), ("alarm", .time), ("uid", .guid), ("data", .binary),
        ]
        var all = columns.map { Argument(sql: $0.0, type: $0.1) }
        // One of each kind; the kinds, not the values, decide how a call is written for each database.
        all += [
            Argument(sql: "1", type: .int32), Argument(sql: "3000000000", type: .int64), Argument(sql: "1.25", type: .decimal),
            Argument(sql: "2.5e0", type: .double), Argument(sql: "'abc'", type: .string), Argument(sql: "'2009-11-01'", type: .string),
            Argument(sql: "TRUE", type: .boolean), Argument(sql: "NULL", type: nil),
            Argument(sql: "1 + 1", type: .int32), Argument(sql: "count + 1", type: .int32), Argument(sql: "0 - count", type: .int32),
            Argument(sql: "-count", type: .int32), Argument(sql: "big - 1", type: .int64), Argument(sql: "count % 3", type: .int32),
            Argument(sql: "price + 1", type: .decimal), Argument(sql: "ratio / 2", type: .double), Argument(sql: "single * 2", type: .single),
            Argument(sql: "NULL + 1", type: .int32),
            Argument(sql: ":i", type: .int64), Argument(sql: ":huge", type: .int64), Argument(sql: ":dec", type: .decimal),
            Argument(sql: ":dbl", type: .double), Argument(sql: ":s", type: .string), Argument(sql: ":b", type: .boolean),
            Argument(sql: ":nul", type: nil),
            Argument(sql: "CAST(count AS INTEGER)", type: .int64), Argument(sql: "CAST(ratio AS DECIMAL)", type: .decimal),
            Argument(sql: "CAST(count AS TEXT)", type: .string), Argument(sql: "CAST(NULL AS INTEGER)", type: .int64),
            Argument(sql: "LENGTH(name)", type: .int32), Argument(sql: "ABS(count)", type: .int32), Argument(sql: "ROUND(ratio)", type: .double),
            Argument(sql: "YEAR(born)", type: .int32), Argument(sql: "COALESCE(count, big)", type: .int64),
            Argument(sql: "CASE WHEN flag THEN 1 + 1 ELSE big END", type: .int64),
        ]
        return all
    }()

    /// The arguments tried in pairs: NULL, a value of each kind of type, and those emitted
    /// differently from a plain value of their type (32-bit arithmetic is 64-bit on PostgreSQL).
    static let representatives: [Argument] = arguments.filter {
        ["NULL", "1 + 1", "-count", ":i", "2.5e0", "'abc'", "name", "CAST(NULL AS INTEGER)"].contains($0.sql)
    }

    /// A valid argument for each position of a function, used where another position varies.
    static func usual(_ function: SQLFunction, position: Int) -> String {
        switch function {
        case .count, .sum, .avg, .min, .max, .abs, .round: return position == 0 ? "ratio" : "1"
        case .lower, .upper, .length, .trim, .ltrim, .rtrim: return position == 0 ? "name" : "'a'"
        case .substr: return ["name", "2", "3"][position]
        case .replace: return ["name", "'a'", "'b'"][position]
        case .coalesce, .nullif: return "count"
        case .year, .month, .day, .hour, .minute, .second: return "born"
        }
    }

    /// The calls to try: each position over every argument kind with the others usual, and each
    /// pair of positions over one argument per type.
    static func calls() -> [String] {
        var calls: [String] = []
        for function in SQLFunction.allCases {
            let counts = function == .coalesce ? [2, 3] : Array(function.arity)
            calls += Self.calls(function.rawValue, counts: counts, separator: ", ", usual: { Self.usual(function, position: $0) },
                                arguments: arguments.map(\.sql), pairs: representatives.map(\.sql))
        }
        calls.append("SUBSTRING(name, 1 + 1, 2 * 1)")
        var seen: Set<String> = []
        return calls.filter { seen.insert($0).inserted }
    }

    /// Calls of one function with each number of arguments in `counts`: each position over every
    /// argument with the others usual, and each pair of positions over every pair of `pairs`.
    static func calls(_ name: String, counts: [Int], separator: String, usual: (Int) -> String,
                      arguments: [String], pairs: [String]) -> [String] {
        var calls: [String] = []
        for count in counts {
            let usual = (0..<count).map(usual)
            let call = { (items: [String]) in "\(name)(\(items.joined(separator: separator)))" }
            for position in 0..<count {
                for argument in arguments {
                    var items = usual
                    items[position] = argument
                    calls.append(call(items))
                }
            }
            for first in 0..<count {
                for second in (first + 1)..<count {
                    for a in pairs {
                        for b in pairs {
                            var items = usual
                            items[first] = a
                            items[second] = b
                            calls.append(call(items))
                        }
                    }
                }
            }
        }
        return calls
    }

    /// What one database answered for a query: its status and, for a 200, its rows.
    struct Answer: Equatable {
        var status: Int
        var rows: [[JSONValue]]
        var message: String
    }

    static func ask(_ client: any TestClientProtocol, _ sql: String) async throws -> Answer {
        let response = try await client.sql(sql, parameters: parameters, service: "args")
        let status = Int(response.status.code)
        guard status == 200 else { return Answer(status: status, rows: [], message: response.odataError?.message ?? response.text) }
        let rows = (try? JSONValue.parse(Array(response.body.readableBytesView)))?["rows"]?.arrayValue?.map { $0.arrayValue ?? [] } ?? []
        return Answer(status: status, rows: rows, message: "")
    }

    /// Values as both databases may spell the same number: within a relative 1e-9, and an integral
    /// double equal to an integer.
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        if a == b { return true }
        func number(_ value: JSONValue) -> Double? {
            switch value {
            case .number(let text): return Double(text)
            case .string(let text): return Double(text)
            default: return nil
            }
        }
        // A DateTimeOffset keeps its offset on SQLite; PostgreSQL's timestamptz keeps the instant only.
        if case .string(let x) = a, case .string(let y) = b, let p = ODataDateTimeOffset.parse(x), let q = ODataDateTimeOffset.parse(y) {
            return p.utc == q.utc
        }
        guard let x = number(a), let y = number(b) else { return false }
        return x == y || abs(x - y) <= 1e-9 * max(abs(x), abs(y))
    }

    /// Rows as compact text, for messages.
    static func text(_ rows: [[JSONValue]]) -> String {
        rows.map { row in row.map { value -> String in
            switch value {
            case .null: return "null"
            case .number(let text): return text
            case .string(let text): return "'\(text)'"
            case .bool(let flag): return String(flag)
            default: return "\(value)"
            }
        }.joined(separator: ",") }.joined(separator: " | ")
    }

    static func sameRows(_ a: [[JSONValue]], _ b: [[JSONValue]]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.count == $1.count && zip($0, $1).allSatisfy(same) }
    }

    /// What is wrong with the two databases' answers to one request, if anything: a 5xx, one
    /// accepting what the other refuses, or different rows.
    static func problem(_ request: String, sqlite lite: Answer, postgres pg: Answer) -> String? {
        let both = "SQLite \(lite.status) \(lite.message.prefix(160)); PostgreSQL \(pg.status) \(pg.message.prefix(160))"
        if lite.status >= 500 || pg.status >= 500 { return "\(request): 5xx — \(both)" }
        if (lite.status == 200) != (pg.status == 200) { return "\(request): \(both)" }
        if lite.status == 200, !sameRows(lite.rows, pg.rows) {
            return "\(request): different results — SQLite \(text(lite.rows)); PostgreSQL \(text(pg.rows))"
        }
        return nil
    }

    @Test("$sql: every function with every kind of argument — accepted on both or refused on both, never a 5xx, the same values")
    func sqlFunctions() async throws {
        let calls = Self.calls()
        try await withServer(.sqlite, demo: false, services: [Self.service]) { sqlite in
            try await withServer(.postgres, demo: false, services: [Self.service]) { postgres in
                var accepted: [String: Int] = [:], refused = 0
                var problems: [String] = []
                for call in calls {
                    let aggregate = SQLFunction(name: String(call.prefix { $0 != "(" }))?.isAggregate == true
                    let sql = aggregate ? "SELECT \(call) AS v FROM T" : "SELECT id, \(call) AS v FROM T ORDER BY id"
                    async let liteAnswer = Self.ask(sqlite, sql)
                    async let pgAnswer = Self.ask(postgres, sql)
                    let (lite, pg) = (try await liteAnswer, try await pgAnswer)
                    if let problem = Self.problem(sql, sqlite: lite, postgres: pg) {
                        problems.append(problem)
                    } else if lite.status == 200, lite.rows.count != (aggregate ? 1 : 4) {
                        // Both alike, and both wrong (an aggregate of NULL once came out as one NULL per row).
                        problems.append("\(sql): \(lite.rows.count) rows")
                    }
                    if lite.status == 200 { accepted[String(call.prefix { $0 != "(" }), default: 0] += 1 } else { refused += 1 }
                }
                if let path = ProcessInfo.processInfo.environment["STRATA_FUNCTION_REPORT"] {
                    try? (problems.joined(separator: "\n") + "\naccepted \(accepted.values.reduce(0, +)) of \(calls.count)\n").write(toFile: path, atomically: true, encoding: .utf8)
                }
                #expect(problems.isEmpty, "\(problems.count) of \(calls.count) calls:\n\(problems.prefix(60).joined(separator: "\n"))")
                // The generator reaches both outcomes, and every function is called for real.
                let never = SQLFunction.allCases.map(\.rawValue).filter { accepted[$0, default: 0] == 0 }
                #expect(never.isEmpty && refused > 0, "never accepted: \(never); refused \(refused)")
            }
        }
    }
    // MARK: $filter

    /// Every kind of `$filter` argument: a property of each type, literals of each type, arithmetic
    /// (whose operands PostgreSQL may widen), negation, `null`, casts and other functions' results.
    static let filterArguments: [String] = [
        "small", "count", "big", "price", "ratio", "single", "name", "flag", "born", "seen", "alarm", "uid", "data",
        "1", "-3", "3000000000L", "1.25M", "2.5", "2.5f", "'abc'", "true", "null",
        "datetime'2009-11-01T13:20:05'", "datetimeoffset'2009-11-01T02:00:00+02:00'", "time'PT13H20M'",
        "guid'aaaaaaaa-0000-0000-0000-000000000001'", "X'0A1B'",
        "1 add 1", "count add 1", "0 sub count", "big sub 1", "count mod 3", "-count", "price add 1", "ratio div 2", "null add 1",
        "length(name)", "round(ratio)", "year(born)", "substring(name,1)", "cast(count,'Edm.Int64')", "cast(null,'Edm.Int32')",
    ]

    /// A valid argument for each position of a `$filter` function.
    static func usual(_ function: QueryFunction, position: Int) -> String {
        switch function {
        case .substringof: return ["'a'", "name"][position]
        case .startswith, .endswith, .indexof: return ["name", "'a'"][position]
        case .concat: return ["name", "'x'"][position]
        case .replace: return ["name", "'a'", "'b'"][position]
        case .substring: return ["name", "1", "2"][position]
        case .length, .tolower, .toupper, .trim: return "name"
        case .year, .month, .day, .hour, .minute, .second: return "born"
        case .round, .floor, .ceiling: return "ratio"
        // V4's own (the V2 calls below leave them out; V4's are tested in ODataV4FilterTests).
        case .contains: return ["name", "'a'"][position]
        case .fractionalseconds, .date, .time, .totaloffsetminutes: return "seen"
        case .now, .maxdatetime, .mindatetime: return ""
        }
    }

    /// The `$filter` calls: each position over every argument with the others usual, each pair of
    /// positions over a few, and `cast` to every primitive type.
    static func filterCalls() -> [String] {
        var calls: [String] = []
        let pairs = ["null", "1 add 1", "-count", "3000000000L", "2.5", "'abc'", "name"]
        for function in QueryFunction.functions(in: .v2) {
            calls += Self.calls(function.name, counts: Array(function.arity), separator: ",", usual: { Self.usual(function, position: $0) },
                                arguments: filterArguments, pairs: pairs)
        }
        for type in EDMPrimitiveType.allCases {
            for argument in filterArguments { calls.append("cast(\(argument),'\(type.qualifiedName)')") }
        }
        var seen: Set<String> = []
        return calls.filter { seen.insert($0).inserted }
    }

    /// The ids of the rows where `call` is not null, and the same ordered by `call`; a status per request.
    static func ask(_ client: any TestClientProtocol, filter call: String) async throws -> Answer {
        let encoded = call.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let filtered = try await client.get("/args/T?$filter=\(encoded)%20ne%20null&$select=id&$orderby=id")
        guard filtered.status == .ok else {
            return Answer(status: Int(filtered.status.code), rows: [], message: filtered.odataError?.message ?? filtered.text)
        }
        var rows = [Self.ids(filtered)]
        let ordered = try await client.get("/args/T?$filter=\(encoded)%20ne%20null&$select=id&$orderby=\(encoded),id")
        rows.append(ordered.status == .ok ? Self.ids(ordered) : [.string("orderby \(ordered.status.code)")])
        return Answer(status: 200, rows: rows, message: "")
    }

    static func ids(_ response: TestResponse) -> [JSONValue] {
        let results = (try? JSONValue.parse(Array(response.body.readableBytesView)))?["d"]?["results"]?.arrayValue ?? []
        return results.map { $0["id"] ?? .null }
    }

    @Test("$filter: every function and cast with every kind of argument — accepted on both or refused on both, never a 5xx, the same rows in the same order")
    func filterFunctions() async throws {
        let calls = Self.filterCalls()
        try await withServer(.sqlite, demo: false, services: [Self.service]) { sqlite in
            try await withServer(.postgres, demo: false, services: [Self.service]) { postgres in
                var accepted: [String: Int] = [:], refused = 0
                var problems: [String] = []
                for call in calls {
                    async let liteAnswer = Self.ask(sqlite, filter: call)
                    async let pgAnswer = Self.ask(postgres, filter: call)
                    let (lite, pg) = (try await liteAnswer, try await pgAnswer)
                    if let problem = Self.problem(call, sqlite: lite, postgres: pg) { problems.append(problem) }
                    if lite.status == 200 { accepted[String(call.prefix { $0 != "(" }), default: 0] += 1 } else { refused += 1 }
                }
                if let path = ProcessInfo.processInfo.environment["STRATA_FUNCTION_REPORT"] {
                    try? (problems.joined(separator: "\n") + "\naccepted \(accepted.values.reduce(0, +)) of \(calls.count)\n").write(toFile: path, atomically: true, encoding: .utf8)
                }
                #expect(problems.isEmpty, "\(problems.count) of \(calls.count) calls:\n\(problems.prefix(60).joined(separator: "\n"))")
                let never = (QueryFunction.functions(in: .v2).map(\.name) + ["cast"]).filter { accepted[$0, default: 0] == 0 }
                #expect(never.isEmpty && refused > 0, "never accepted: \(never); refused \(refused)")
            }
        }
    }
}
