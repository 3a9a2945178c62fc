import Foundation
import HTTPTypes
import HummingbirdTesting
import StrataCore
import Testing

/// Random `$apply` built from valid and invalid pieces, sent to both databases: every answer is a
/// 200, a 400 or a 501 with an OData error body, never a 500 (a statement the database refuses, a
/// type the decoder cannot read, a crash).
@Suite("OData V4: $apply fuzzing")
struct ODataV4ApplyFuzzTests {
    static let paths = ["brand", "price", "category", "inStock", "equipmentID", "playerID", "size", "Players/lastName",
                        "Players/jerseyNumber", "Players/birthDate", "Players/Teams/city", "nothing", "Players"]
    static let methods = ["sum", "min", "max", "average", "countdistinct", "total"]
    static let expressions = ["price gt 100", "inStock", "brand eq 'Bauer'", "price mul 2", "length(brand)", "Players/jerseyNumber add 1",
                              "startswith(brand,'C')", "year(Players/birthDate)", "price div 0", "null", "brand", "1"]

    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func transformation(_ random: inout Generator, aliases: inout [String]) -> String {
        func pick(_ values: [String]) -> String { values.randomElement(using: &random)! }
        switch Int.random(in: 0..<8, using: &random) {
        case 0:
            let alias = "A\(aliases.count)"
            aliases.append(alias)
            return "aggregate(\(pick(paths + expressions)) with \(pick(methods)) as \(alias),$count as N\(aliases.count))"
        case 1, 2:
            let alias = "G\(aliases.count)"
            aliases.append(alias)
            let grouped = (0..<Int.random(in: 1...2, using: &random)).map { _ in pick(paths) }
            return "groupby((\(grouped.joined(separator: ","))),aggregate(\(pick(paths + expressions)) with \(pick(methods)) as \(alias)))"
        case 3:
            return "filter(\(pick(expressions + aliases.map { "\($0) gt 1" })))"
        case 4:
            let alias = "C\(aliases.count)"
            aliases.append(alias)
            return "compute(\(pick(expressions + aliases)) as \(alias))"
        case 5:
            return "orderby(\(pick(paths + aliases)) \(pick(["asc", "desc"])))"
        case 6:
            return "\(pick(["top", "skip"]))(\(Int.random(in: 0...5, using: &random)))"
        default:
            return pick(["identity", "topcount(2,price)", "groupby((rollup(brand)))", "filter(", "aggregate($count)"])
        }
    }

    @Test("Random $apply never answers 500", arguments: Backend.allCases)
    func neverAServerError(_ backend: Backend) async throws {
        try await withServer(backend, pageSize: 3) { client in
            var random = Generator(state: 38)
            var statuses: [Int: Int] = [:]
            for _ in 0..<150 {
                var aliases: [String] = []
                let steps = (0..<Int.random(in: 1...4, using: &random)).map { _ in Self.transformation(&random, aliases: &aliases) }
                var query = "$apply=" + steps.joined(separator: "/")
                if Bool.random(using: &random) { query += "&$count=true&$top=\(Int.random(in: 0...4, using: &random))" }
                let uri = "/hockey/Equipment?" + query.replacingOccurrences(of: " ", with: "%20").replacingOccurrences(of: "'", with: "%27")
                let response = try await client.get(uri, headers: ODataV4ApplyTests.v4)
                let status = Int(response.status.code)
                statuses[status, default: 0] += 1
                #expect([200, 400, 501].contains(status), "\(query): \(response.text.prefix(400))")
                if status != 200 { #expect(response.json["error"]?["message"]?.stringValue?.isEmpty == false, "\(query)") }
            }
            #expect((statuses[200] ?? 0) > 10, "most random pipelines should be valid enough to run: \(statuses)")
        }
    }
}
