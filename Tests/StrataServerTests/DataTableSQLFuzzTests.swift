import Foundation
import HTTPTypes
import HummingbirdTesting
@testable import StrataCore
import StrataDemo
import Testing

/// Random and mutated requests to `$sql`: the server answers every one with 200 or a 4xx OData
/// error, never a 5xx, and no data changes.
@Suite("Data tables: SQL fuzzing")
struct DataTableSQLFuzzTests {
    static let seeds = [
        "SELECT personID, firstName FROM Person WHERE lastName LIKE 'J%' ORDER BY personID LIMIT 10",
        "SELECT p.lastName, COUNT(*) AS n FROM Person p JOIN PersonCar pc ON pc.personID = p.personID GROUP BY p.lastName HAVING COUNT(*) > 1",
        "SELECT CASE WHEN carID % 2 = 0 THEN 'even' ELSE 'odd' END AS parity, make FROM Car WHERE manufactureDate IS NOT NULL",
        "SELECT DISTINCT make FROM Car ORDER BY make DESC NULLS LAST LIMIT 3 OFFSET 1",
        "SELECT CAST(personID AS TEXT) || ':' || UPPER(firstName) AS tag FROM Person WHERE personID BETWEEN :a AND :b",
        "SELECT * FROM Person WHERE ssn IN ('1', '2') OR NOT (firstName = 'Bob')",
    ]

    static let fragments = [
        "'", "\"", ";", "--", "/*", "*/", "(", ")", ",", ":a", ":zz", "?", "$1", "::", "\\", "\u{0}", "\n", "\u{2019}", "é",
        " DROP TABLE Person", " UNION SELECT * FROM Car", " OR 1=1", " FROM sqlite_master", " pg_sleep(1)", " WHERE", " JOIN",
        " SELECT", " NULL", " 99999999999999999999999", " -0.5e308", " 'x''y'", " LIMIT -1", " OFFSET 1e9", " COUNT(*)",
        " ORDER BY 99", " GROUP BY 1", " AS", "*", "%", "||", " CASE", " END", " IS NOT", " ESCAPE '!'",
    ]

    static func mutate(_ sql: String, _ random: inout SplitMix64) -> String {
        var scalars = Array(sql.unicodeScalars)
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let position = Int.random(in: 0...scalars.count, using: &random)
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                scalars.insert(contentsOf: fragments.randomElement(using: &random)!.unicodeScalars, at: position)
            case 1 where !scalars.isEmpty:
                let end = min(scalars.count, position + Int.random(in: 1...8, using: &random))
                if position < end { scalars.removeSubrange(position..<end) }
            case 2:
                scalars.insert(Unicode.Scalar(UInt8.random(in: 32...126, using: &random)), at: position)
            default:
                let other = Array(seeds.randomElement(using: &random)!.unicodeScalars)
                let cut = Int.random(in: 0...other.count, using: &random)
                scalars = Array(scalars[..<position]) + Array(other[cut...])
            }
        }
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        return text
    }

    @Test("Mutated queries and parameters get 200 or a 4xx, never a 5xx; data is unchanged", arguments: Backend.allCases)
    func fuzz(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let before = try await client.snapshot(["/cardealer/Person/$count", "/cardealer/Car/$count", "/cardealer/Person(1)"])
            var random = SplitMix64(seed: 0x5EED_0008)
            var statuses: [Int: Int] = [:]
            for round in 0..<300 {
                let sql = Self.mutate(Self.seeds[round % Self.seeds.count], &random)
                let parameters: [String: ODataValue] = ["a": .int64(Int64.random(in: -5...50, using: &random)),
                                                        "b": round % 3 == 0 ? .string("x'--") : .int64(40)]
                let response = try await client.sql(sql, parameters: parameters)
                let status = Int(response.status.code)
                statuses[status, default: 0] += 1
                #expect(status == 200 || (400..<500).contains(status), "\(sql) → \(status) \(response.text.prefix(300))")
                if status != 200 {
                    #expect(response.odataError != nil, "\(sql): \(response.text.prefix(200))")
                }
            }
            // Raw bodies: truncated and shuffled JSON.
            let body = String(decoding: DataTableQuery(sql: Self.seeds[0]).jsonBytes, as: UTF8.self)
            for round in 0..<60 {
                var bytes = Array(body.utf8)
                bytes.removeLast(Int.random(in: 0..<bytes.count, using: &random))
                if round % 2 == 0, !bytes.isEmpty { bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random) }
                let response = try await client.send(.post, "/cardealer/$sql", headers: [.contentType: "application/json"],
                                                     body: String(decoding: bytes, as: UTF8.self))
                #expect((200..<500).contains(Int(response.status.code)), "\(response.text.prefix(200))")
            }
            #expect(statuses[200, default: 0] > 0 && statuses.keys.contains { $0 >= 400 }, "\(statuses)")
            #expect(try await client.snapshot(["/cardealer/Person/$count", "/cardealer/Car/$count", "/cardealer/Person(1)"]) == before)
        }
    }
}
