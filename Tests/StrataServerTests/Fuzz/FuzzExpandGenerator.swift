import Foundation
import HTTPTypes
import StrataDemo

/// Deep and wide `$expand` over the CarDealer sample's relationships, which lead back and forth
/// (PersonCar/Car/PersonCar/Car…), so that shared entities repeat in the answer: up to 20 paths of
/// up to 5 steps, on collections and single entities, with `$top`, `$select` and OData 1.0's
/// unpaged responses now and then.
struct FuzzExpandGenerator {
    /// Navigation properties by entity set.
    static let navigation: [String: [(name: String, target: String)]] = [
        "Person": [("PersonCar", "PersonCar")],
        "Car": [("PersonCar", "PersonCar")],
        "PersonCar": [("Person", "Person"), ("Car", "Car"), ("PersonCarMaintenance", "PersonCarMaintenance")],
        "Maintenance": [("PersonCarMaintenance", "PersonCarMaintenance")],
        "PersonCarMaintenance": [("PersonCar", "PersonCar"), ("Maintenance", "Maintenance")],
    ]

    func request(_ random: inout SplitMix64) -> FuzzRequest {
        let set = random.pick(Array(Self.navigation.keys).sorted())
        let paths = (0..<(1 + random.below(20))).map { _ in path(from: set, &random) }
        var uri = "/cardealer/\(set)" + (random.chance(20) ? "(1)" : "") + "?$expand=" + paths.joined(separator: ",")
        if random.chance(30) { uri += "&$top=\(random.pick(["1", "10", "500", "1000"]))" }
        var headers: HTTPFields = [:]
        if random.chance(15) { headers[HTTPField.Name("MaxDataServiceVersion")!] = "1.0" }
        return FuzzRequest(method: .get, uri: uri, headers: headers)
    }

    private func path(from set: String, _ random: inout SplitMix64) -> String {
        var steps: [String] = []
        var current = set
        for _ in 0..<(1 + random.below(5)) {
            guard let hop = Self.navigation[current].map({ random.pick($0) }) else { break }
            steps.append(hop.name)
            current = hop.target
        }
        return steps.joined(separator: "/")
    }
}
