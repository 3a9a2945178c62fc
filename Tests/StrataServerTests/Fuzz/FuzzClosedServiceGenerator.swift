import Foundation
import HTTPTypes
import StrataCore
import StrataDemo

/// Anonymous requests to `hockey`, a service that only signed-in callers may use: every path —
/// sets, keys, navigation, query options, `$metadata`, `$sql`, `$tables`, `$feed`, `$batch`,
/// `$changes` — with real and made-up names. Each must answer 401 and name nothing of the service.
struct FuzzClosedServiceGenerator {
    /// Names of the service, which no answer may contain.
    static let names = ["Teams", "Players", "Equipment", "teamID", "playerID", "equipmentID", "jerseyNumber", "conference",
                        "division", "founded", "birthDate", "shoots", "inStock"]
    static let words = names + ["Nope", "nope", "x", "$count", "$value", "$links", "1", "'a'", "name", "city"]

    func request(_ random: inout SplitMix64) -> FuzzRequest {
        let word = { (random: inout SplitMix64) in random.pick(Self.words) }
        switch random.below(9) {
        case 0:
            return FuzzRequest(method: .get, uri: "/hockey/" + random.pick(["", "$metadata", "$batch", "$count"]))
        case 1:
            var path = "/hockey/\(word(&random))"
            if random.chance(50) { path += "(\(random.pick(["1", "'x'", "teamID=1", ""])))" }
            if random.chance(50) { path += "/\(word(&random))" }
            return FuzzRequest(method: .get, uri: path)
        case 2:
            let option = random.pick(["$filter=\(word(&random))%20eq%201", "$select=\(word(&random))", "$expand=\(word(&random))",
                                      "$orderby=\(word(&random))", "$top=1", "$skiptoken=1"])
            return FuzzRequest(method: .get, uri: "/hockey/\(word(&random))?\(option)")
        case 3:
            let sql = random.pick(["SELECT 1 AS v", "SELECT \(word(&random)) FROM \(word(&random))", "SELECT * FROM \(word(&random)) JOIN \(word(&random)) ON 1 = 1",
                                   "SELECT COUNT(*) AS n FROM \(word(&random))", "SELEC"])
            return FuzzRequest(method: .post, uri: "/hockey/$sql", headers: [.contentType: "application/json"],
                               body: DataTableQuery(sql: sql).jsonBytes)
        case 4:
            return FuzzRequest(method: .get, uri: "/hockey/$tables" + random.pick(["", "/\(word(&random))", "?names=\(word(&random)),\(word(&random))"]))
        case 5:
            return FuzzRequest(method: .get, uri: "/hockey/$feed?sets=\(word(&random))")
        case 6:
            let body = #"{"changes":[{"id":"1","table":"\#(word(&random))","kind":"insert","key":{"\#(word(&random))":-1},"values":{"\#(word(&random))":1}}]}"#
            return FuzzRequest(method: .post, uri: "/hockey/$changes", headers: [.contentType: "application/json"], body: Array(body.utf8))
        case 7:
            let batch = BatchBody(items: [.query("\(word(&random))?$select=\(word(&random))")])
            return FuzzRequest(method: .post, uri: "/hockey/$batch", headers: [.contentType: batch.contentType],
                               body: Array(batch.text.utf8))
        default:
            return FuzzRequest(method: random.pick([.post, .put, .patch, .delete, HTTPRequest.Method("MERGE")!]), uri: "/hockey/\(word(&random))(1)",
                               headers: [.contentType: "application/json"], body: Array(#"{"\#(word(&random))":1}"#.utf8))
        }
    }
}
