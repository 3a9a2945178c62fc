import Foundation
import HTTPTypes
import HummingbirdTesting
import StrataCore
@testable import StrataIdentity
@testable import StrataServer
import Testing

/// `$apply` (the Data Aggregation extension) and `$compute` end to end, on both databases, against
/// the demo data. Every expected number is computed here from the rows a plain read returns, not
/// by the server's own aggregation.
@Suite("OData V4: $apply and $compute")
struct ODataV4ApplyTests {
    static let v4: HTTPFields = [HTTPField.Name("OData-MaxVersion")!: "4.0"]

    /// A query string as typed, with its spaces escaped.
    static func url(_ path: String, _ query: String) -> String {
        path + "?" + query.replacingOccurrences(of: " ", with: "%20").replacingOccurrences(of: "'", with: "%27")
    }

    /// Every row of a V4 collection read, following `@odata.nextLink`.
    static func all(_ client: any TestClientProtocol, _ uri: String, headers: HTTPFields = v4) async throws -> [JSONValue] {
        var rows: [JSONValue] = []
        var next: String? = uri
        while let link = next {
            let response = try await client.get(link, headers: headers)
            #expect(response.status == .ok, "\(link): \(response.text.prefix(300))")
            rows += response.json["value"]?.arrayValue ?? []
            next = response.json["@odata.nextLink"]?.stringValue.map { $0.replacingOccurrences(of: "http://localhost", with: "") }
        }
        return rows
    }

    static func close(_ a: Double?, _ b: Double?, within tolerance: Double = 0.005) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return abs(a - b) <= tolerance * max(1, abs(b))
    }

    @Test("groupby with every aggregation method gives the numbers of the rows, in one response of dynamic entities", arguments: Backend.allCases)
    func groupByEveryMethod(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let equipment = try await Self.all(client, "/hockey/Equipment?$top=10000")
            #expect(equipment.count > 10)
            let apply = "$apply=groupby((brand),aggregate(price with sum as Total,$count as Items,price with max as Highest,"
                + "price with min as Lowest,price with average as Mean,category with countdistinct as Kinds))"
            let response = try await client.get(Self.url("/hockey/Equipment", apply), headers: Self.v4)
            #expect(response.status == .ok, "\(response.text.prefix(500))")
            #expect(response.json["@odata.context"]?.stringValue
                    == "http://localhost/hockey/$metadata#Equipment(brand,Total,Items,Highest,Lowest,Mean,Kinds)")
            let groups = try #require(response.json["value"]?.arrayValue)
            let brands = Dictionary(grouping: equipment) { $0["brand"]?.stringValue ?? "" }
            #expect(groups.count == brands.count)
            #expect(groups.map { $0["brand"]?.stringValue ?? "" } == brands.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) },
                    "groups come ordered by their grouping properties")
            for group in groups {
                let brand = group["brand"]?.stringValue ?? ""
                let rows = brands[brand] ?? []
                let prices = rows.compactMap { $0["price"]?.doubleValue }
                #expect(group["@odata.id"] == nil)
                #expect(group["Items"] == .number(String(rows.count)), "\(brand)")
                #expect(Self.close(group["Total"]?.doubleValue, prices.isEmpty ? nil : prices.reduce(0, +)), "\(brand)")
                #expect(Self.close(group["Highest"]?.doubleValue, prices.max()), "\(brand)")
                #expect(Self.close(group["Lowest"]?.doubleValue, prices.min()), "\(brand)")
                #expect(Self.close(group["Mean"]?.doubleValue, prices.isEmpty ? nil : prices.reduce(0, +) / Double(prices.count)), "\(brand)")
                #expect(group["Kinds"] == .number(String(Set(rows.compactMap { $0["category"]?.stringValue }).count)), "\(brand)")
            }
            // IEEE754Compatible: the Edm.Int64 counts become strings.
            let compatible = try await client.get(Self.url("/hockey/Equipment", "$apply=aggregate($count as Items)"),
                                                  headers: Self.v4 + [.accept: "application/json;IEEE754Compatible=true"])
            #expect(compatible.json["value"]?.arrayValue?.first?["Items"] == .string(String(equipment.count)))
        }
    }

    @Test("A group-by through two navigation hops is one SQL statement (two with $count=true): no download, no N+1",
          arguments: Backend.allCases)
    func oneStatement(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let apply = "$apply=filter(cost gt 0)/groupby((PersonCar/Car/make,PersonCar/Car/model),aggregate(cost with sum as Cost,$count as Jobs))/orderby(Cost desc)"
            let before = try await statementCount(client)
            let response = try await client.get(Self.url("/cardealer/PersonCarMaintenance", apply), headers: Self.v4)
            let after = try await statementCount(client)
            #expect(response.status == .ok, "\(response.text.prefix(300))")
            #expect(after - before == 1)
            let selected = try await client.get(Self.url("/cardealer/PersonCarMaintenance", apply + "&$select=PersonCar,Jobs"), headers: Self.v4)
            #expect(selected.json["@odata.context"]?.stringValue == "http://localhost/cardealer/$metadata#PersonCarMaintenance(PersonCar(Car(make,model)),Jobs)")
            #expect(selected.json["value"]?.arrayValue?.first?["Cost"] == nil && selected.json["value"]?.arrayValue?.first?["Jobs"] != nil)
            let afterSelect = try await statementCount(client)
            let counted = try await client.get(Self.url("/cardealer/PersonCarMaintenance", apply + "&$count=true"), headers: Self.v4)
            #expect(try await statementCount(client) - afterSelect == 2)
            #expect(counted.json["@odata.count"]?.intValue == response.json["value"]?.arrayValue?.count)
        }
    }

    @Test("aggregate alone gives one row; filter before it narrows the rows aggregated", arguments: Backend.allCases)
    func aggregateAndFilter(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let equipment = try await Self.all(client, "/hockey/Equipment?$top=10000")
            let whole = try await client.get(Self.url("/hockey/Equipment", "$apply=aggregate($count as Items,price with sum as Total)"), headers: Self.v4)
            let row = try #require(whole.json["value"]?.arrayValue?.first)
            #expect(whole.json["value"]?.arrayValue?.count == 1)
            #expect(row["Items"] == .number(String(equipment.count)))
            #expect(Self.close(row["Total"]?.doubleValue, equipment.compactMap { $0["price"]?.doubleValue }.reduce(0, +)))
            #expect(whole.json["@odata.context"]?.stringValue == "http://localhost/hockey/$metadata#Equipment(Items,Total)")

            let inStock = equipment.filter { $0["inStock"]?.boolValue == true && ($0["price"]?.doubleValue ?? 0) > 100 }
            let filtered = try await client.get(Self.url("/hockey/Equipment", "$apply=filter(inStock and price gt 100)/aggregate($count as Items)"), headers: Self.v4)
            #expect(filtered.json["value"]?.arrayValue?.first?["Items"] == .number(String(inStock.count)), "\(filtered.text.prefix(300))")
        }
    }

    @Test("groupby through single-valued navigation nests the path's properties", arguments: Backend.allCases)
    func groupByNavigation(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let jobs = try await Self.all(client, "/cardealer/PersonCarMaintenance?$top=10000&$expand=PersonCar/Car")
            #expect(!jobs.isEmpty)
            var expected: [String: (count: Int, cost: Double)] = [:]
            for job in jobs {
                let make = job["PersonCar"]?["Car"]?["make"]?.stringValue ?? "?"
                expected[make, default: (0, 0)].count += 1
                expected[make, default: (0, 0)].cost += job["cost"]?.doubleValue ?? 0
            }
            let apply = "$apply=groupby((PersonCar/Car/make),aggregate(cost with sum as Cost,$count as Jobs))"
            let response = try await client.get(Self.url("/cardealer/PersonCarMaintenance", apply), headers: Self.v4)
            #expect(response.status == .ok, "\(response.text.prefix(500))")
            #expect(response.json["@odata.context"]?.stringValue == "http://localhost/cardealer/$metadata#PersonCarMaintenance(PersonCar(Car(make)),Cost,Jobs)")
            let groups = response.json["value"]?.arrayValue ?? []
            #expect(groups.count == expected.count)
            for group in groups {
                let make = group["PersonCar"]?["Car"]?["make"]?.stringValue ?? "?"
                #expect(group["Jobs"] == .number(String(expected[make]?.count ?? -1)), "\(make)")
                #expect(Self.close(group["Cost"]?.doubleValue, expected[make]?.cost), "\(make)")
            }
        }
    }

    @Test("After the aggregation: filter, compute, orderby, skip and top, then $filter, $orderby, $skip, $top and $count", arguments: Backend.allCases)
    func stagesAfterTheAggregation(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let equipment = try await Self.all(client, "/hockey/Equipment?$top=10000")
            let counts = Dictionary(grouping: equipment) { $0["brand"]?.stringValue ?? "" }.mapValues(\.count)
            // By count descending, ties by brand (the grouping property breaks them).
            let ranked = counts.sorted { $0.value != $1.value ? $0.value > $1.value : Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }

            let apply = "$apply=groupby((brand),aggregate($count as Items))/compute(Items mul 2 as Twice)/orderby(Items desc)/top(3)"
            let top = try await client.get(Self.url("/hockey/Equipment", apply), headers: Self.v4)
            #expect(top.status == .ok, "\(top.text.prefix(500))")
            let rows = top.json["value"]?.arrayValue ?? []
            #expect(rows.map { $0["brand"]?.stringValue ?? "" } == ranked.prefix(3).map(\.key))
            #expect(rows.map { $0["Twice"]?.int64Value ?? -1 } == ranked.prefix(3).map { Int64($0.value * 2) })

            let threshold = ranked[ranked.count / 2].value
            let system = "$apply=groupby((brand),aggregate($count as Items))&$filter=Items ge \(threshold)&$orderby=Items desc&$skip=1&$top=2&$count=true"
            let paged = try await client.get(Self.url("/hockey/Equipment", system), headers: Self.v4)
            #expect(paged.status == .ok, "\(paged.text.prefix(500))")
            let kept = ranked.filter { $0.value >= threshold }
            #expect(paged.json["@odata.count"] == .number(String(kept.count)))
            #expect((paged.json["value"]?.arrayValue ?? []).map { $0["brand"]?.stringValue ?? "" } == kept.dropFirst().prefix(2).map(\.key))

            // A filter after top works on the rows top kept.
            let after = try await client.get(Self.url("/hockey/Equipment", "$apply=groupby((brand),aggregate($count as Items))/orderby(Items desc)/top(2)/filter(Items lt \(ranked[0].value))"), headers: Self.v4)
            #expect((after.json["value"]?.arrayValue ?? []).map { $0["brand"]?.stringValue ?? "" } == ranked.prefix(2).filter { $0.value < ranked[0].value }.map(\.key))
        }
    }

    @Test("groupby a property computed before; $apply under a navigation path; filter and compute alone keep the entities",
          arguments: Backend.allCases)
    func computedGroupsAndEntities(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let equipment = try await Self.all(client, "/hockey/Equipment?$top=10000")
            let initials = Dictionary(grouping: equipment) { String(($0["brand"]?.stringValue ?? "").prefix(1)) }.mapValues(\.count)
            let apply = "$apply=compute(substring(brand,0,1) as Initial)/groupby((Initial),aggregate($count as N))"
            let grouped = try await client.get(Self.url("/hockey/Equipment", apply), headers: Self.v4)
            #expect(grouped.status == .ok, "\(grouped.text.prefix(300))")
            let rows = grouped.json["value"]?.arrayValue ?? []
            #expect(Dictionary(uniqueKeysWithValues: rows.map { ($0["Initial"]?.stringValue ?? "", Int($0["N"]?.int64Value ?? -1)) }) == initials)

            // Under a navigation path: only the player's equipment.
            let owned = equipment.filter { $0["playerID"]?.intValue == 1 }.count
            let nested = try await client.get(Self.url("/hockey/Players(1)/Equipment", "$apply=aggregate($count as N)"), headers: Self.v4)
            #expect(nested.json["value"]?.arrayValue?.first?["N"] == .number(String(owned)), "\(nested.text.prefix(300))")

            // Without an aggregation the entities stay entities: filter is $filter, compute is $compute.
            let kept = try await client.get(Self.url("/hockey/Equipment", "$apply=filter(price gt 100)/compute(price mul 2 as Twice)&$top=3&$orderby=equipmentID"), headers: Self.v4)
            #expect(kept.status == .ok, "\(kept.text.prefix(300))")
            let entities = kept.json["value"]?.arrayValue ?? []
            #expect(entities.count == min(3, equipment.filter { ($0["price"]?.doubleValue ?? 0) > 100 }.count))
            #expect(entities.allSatisfy { Self.close($0["Twice"]?.doubleValue, ($0["price"]?.doubleValue).map { $0 * 2 }) && $0["@odata.etag"] != nil })
        }
    }

    @Test("A second aggregation over the groups of the first: an average of sums, groups of groups", arguments: Backend.allCases)
    func aggregateAgain(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let equipment = try await Self.all(client, "/hockey/Equipment?$top=10000")
            let perBrand = Dictionary(grouping: equipment) { $0["brand"]?.stringValue ?? "" }.mapValues(\.count)
            let apply = "$apply=groupby((brand),aggregate($count as Items))/aggregate(Items with average as Mean,Items with max as Most,$count as Brands)"
            let response = try await client.get(Self.url("/hockey/Equipment", apply), headers: Self.v4)
            #expect(response.status == .ok, "\(response.text.prefix(400))")
            let row = response.json["value"]?.arrayValue?.first
            #expect(row?["Brands"] == .number(String(perBrand.count)))
            #expect(row?["Most"] == .number(String(perBrand.values.max() ?? -1)))
            #expect(Self.close(row?["Mean"]?.doubleValue, Double(equipment.count) / Double(perBrand.count)))
            #expect(response.json["@odata.context"]?.stringValue == "http://localhost/hockey/$metadata#Equipment(Mean,Most,Brands)")

            // Brands grouped by how many items they have, after keeping those with more than one.
            let twice = "$apply=groupby((brand),aggregate($count as Items))/filter(Items gt 1)/groupby((Items),aggregate($count as Brands))&$orderby=Items desc"
            let groups = try await client.get(Self.url("/hockey/Equipment", twice), headers: Self.v4)
            #expect(groups.status == .ok, "\(groups.text.prefix(400))")
            let expected = Dictionary(grouping: perBrand.values.filter { $0 > 1 }) { $0 }.mapValues(\.count).sorted { $0.key > $1.key }
            #expect((groups.json["value"]?.arrayValue ?? []).map { [$0["Items"]?.intValue ?? -1, $0["Brands"]?.intValue ?? -1] }
                    == expected.map { [$0.key, $0.value] })
        }
    }

    @Test("Pages of groups follow @odata.nextLink and together hold every group once", arguments: Backend.allCases)
    func paging(_ backend: Backend) async throws {
        try await withServer(backend, pageSize: 2) { client in
            let first = try await client.get(Self.url("/hockey/Equipment", "$apply=groupby((brand))"), headers: Self.v4)
            #expect(first.json["value"]?.arrayValue?.count == 2)
            #expect(first.json["@odata.nextLink"]?.stringValue != nil)
            let groups = try await Self.all(client, Self.url("/hockey/Equipment", "$apply=groupby((brand))"))
            let brands = groups.compactMap { $0["brand"]?.stringValue }
            let equipment = try await Self.all(client, "/hockey/Equipment?$top=10000")
            #expect(brands == Set(equipment.compactMap { $0["brand"]?.stringValue }).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        }
    }

    @Test("A caller with a row filter aggregates only the rows it may read", arguments: Backend.allCases)
    func rowFiltersApply(_ backend: Backend) async throws {
        try await withAuthServer(backend, setup: { admin in
            try await admin.addUser("Bauer", password: "pw-Bauer", roles: [RoleAssignment(role: "brandrep")])
            try await admin.grant(role: "brandrep", service: "hockey", table: "Equipment", actions: [.read], rowFilter: "brand eq $claims.sub")
            try await admin.grant(role: "brandrep", service: "hockey", table: "Players", actions: [.read], rowFilter: nil)
            try await admin.addUser("goalies", password: "pw-goalies", roles: [RoleAssignment(role: "goalierep")])
            try await admin.grant(role: "goalierep", service: "hockey", table: "Equipment", actions: [.read], rowFilter: nil)
            try await admin.grant(role: "goalierep", service: "hockey", table: "Players", actions: [.read], rowFilter: "position eq 'G'")
        }) { client in
            // A joined table's row filter: players the caller may not see group as missing (null).
            let everything = try await Self.all(client, "/hockey/Equipment?$top=10000&$expand=Players", headers: basic(TestAccounts.admin) + Self.v4)
            let goalies = everything.filter { $0["Players"]?["position"]?.stringValue == "G" }.count
            let byPosition = try await client.get(Self.url("/hockey/Equipment", "$apply=groupby((Players/position),aggregate($count as N))"),
                                                  headers: basic("goalies", "pw-goalies") + Self.v4)
            #expect(byPosition.status == .ok, "\(byPosition.text.prefix(300))")
            let positions = (byPosition.json["value"]?.arrayValue ?? []).map { ($0["Players"]?["position"]?.stringValue, $0["N"]?.intValue ?? -1) }
            #expect(positions.map(\.0) == [nil, "G"], "\(byPosition.text.prefix(300))")
            #expect(positions.last?.1 == goalies && positions.first?.1 == everything.count - goalies)

            let rep = basic("Bauer") + Self.v4
            let root = basic(TestAccounts.admin)
            let bauer = Int(try await client.get("/hockey/Equipment/$count?$filter=brand%20eq%20'Bauer'", headers: root).text) ?? -1
            #expect(bauer > 0)
            let grouped = try await client.get(Self.url("/hockey/Equipment", "$apply=groupby((brand),aggregate($count as Items))"), headers: rep)
            #expect(grouped.status == .ok, "\(grouped.text.prefix(300))")
            let rows = grouped.json["value"]?.arrayValue ?? []
            #expect(rows.map { $0["brand"]?.stringValue ?? "" } == ["Bauer"])
            #expect(rows.first?["Items"] == .number(String(bauer)))
            let whole = try await client.get(Self.url("/hockey/Equipment", "$apply=aggregate($count as Items)"), headers: rep)
            #expect(whole.json["value"]?.arrayValue?.first?["Items"] == .number(String(bauer)))
        }
    }

    @Test("A column the caller may not read is refused in $apply as in $filter", arguments: Backend.allCases)
    func restrictedColumns(_ backend: Backend) async throws {
        try await withAuthServer(backend, setup: { admin in
            try await admin.addUser("clerk", password: "pw-clerk", roles: [RoleAssignment(role: "clerk")])
            try await admin.grant(role: "clerk", service: "cardealer", table: nil, actions: [.read], rowFilter: nil)
        }) { client in
            let reader = basic("clerk", "pw-clerk") + Self.v4
            let filter = try await client.get(Self.url("/cardealer/Person", "$filter=ssn eq 'x'"), headers: reader)
            #expect(filter.status == .badRequest)
            for apply in ["$apply=groupby((ssn))", "$apply=aggregate(ssn with countdistinct as N)", "$apply=groupby((lastName))/filter(ssn eq 'x')"] {
                let response = try await client.get(Self.url("/cardealer/Person", apply), headers: reader)
                #expect(response.status == .badRequest, "\(apply): \(response.text.prefix(300))")
                #expect(response.odataError?.message.contains("ssn") == true, "\(apply)")
            }
            let computed = try await client.get(Self.url("/cardealer/Person", "$compute=ssn as S"), headers: reader)
            #expect(computed.status == .badRequest && computed.odataError?.message.contains("ssn") == true, "\(computed.text.prefix(300))")
            let allowed = try await client.get(Self.url("/cardealer/Person", "$apply=groupby((lastName))"), headers: reader)
            #expect(allowed.status == .ok, "\(allowed.text.prefix(300))")
        }
    }

    @Test("$compute adds properties to the entities, usable in $filter, $orderby and $select", arguments: Backend.allCases)
    func compute(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let equipment = try await Self.all(client, "/hockey/Equipment?$top=10000")
            let expensive = equipment.filter { ($0["price"]?.doubleValue ?? 0) * 2 > 300 }
                .sorted { ($0["price"]?.doubleValue ?? 0, $1["equipmentID"]?.intValue ?? 0) > ($1["price"]?.doubleValue ?? 0, $0["equipmentID"]?.intValue ?? 0) }
            #expect(!expensive.isEmpty)
            let query = "$compute=price mul 2 as Double&$filter=Double gt 300&$orderby=Double desc,equipmentID&$select=brand,Double&$top=5"
            let response = try await client.get(Self.url("/hockey/Equipment", query), headers: Self.v4)
            #expect(response.status == .ok, "\(response.text.prefix(500))")
            let rows = response.json["value"]?.arrayValue ?? []
            #expect(rows.count == min(5, expensive.count))
            for (row, expected) in zip(rows, expensive) {
                #expect(Self.close(row["Double"]?.doubleValue, (expected["price"]?.doubleValue).map { $0 * 2 }))
                #expect(row["brand"] == expected["brand"])
                #expect(row["category"] == nil, "$select leaves the other properties out")
            }
            // Without $select every property is written, and every computed one after them.
            let plain = try await client.get(Self.url("/hockey/Equipment", "$compute=price mul 2 as Double,brand as Maker&$orderby=equipmentID&$top=3"), headers: Self.v4)
            let first = try #require(plain.json["value"]?.arrayValue?.first)
            #expect(first["category"] != nil && first["Maker"] == first["brand"])
            #expect(Self.close(first["Double"]?.doubleValue, equipment.first.flatMap { $0["price"]?.doubleValue }.map { $0 * 2 }))
            for (query, hint) in [("$compute=price mul 2 as brand", "already a property"), ("$compute=nothing as X", "nothing"),
                                  ("$compute=price mul 2", "expected 'as'"), ("$compute=price as X&$select=Y", "Y")] {
                let bad = try await client.get(Self.url("/hockey/Equipment", query), headers: Self.v4)
                #expect(bad.status == .badRequest, "\(query): \(bad.text.prefix(300))")
                #expect(bad.json["error"]?["message"]?.stringValue?.contains(hint) == true, "\(query): \(bad.text.prefix(300))")
            }
            #expect(try await client.get(Self.url("/hockey/Equipment", "$compute=price as X")).status == .badRequest, "V2 has no $compute")
        }
    }

    @Test("Bad $apply is a 400 with a V4 error body that says what to write; unimplemented parts are 501; V2 has no $apply",
          arguments: Backend.allCases)
    func badInput(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let bad: [(String, String)] = [
                ("$apply=groupby(brand)", "parentheses"),
                ("$apply=aggregate(price with total as X)", "the methods are sum"),
                ("$apply=aggregate(price as X)", "needs an aggregation method"),
                ("$apply=aggregate(price with sum)", "alias"),
                ("$apply=aggregate(brand with sum as X)", "numeric"),
                ("$apply=groupby((nothing))", "nothing"),
                ("$apply=groupby((brand))/filter(price gt 5)", "not a property of the aggregated result"),
                ("$apply=groupby((brand),aggregate($count as brand))", "alias"),
                ("$apply=frobnicate(1)", "unknown transformation"),
                ("$apply=groupby((brand))&$select=price", "not a property of the aggregated result"),
                ("$apply=groupby((brand))&$expand=Players", "$expand"),
            ]
            for (query, hint) in bad {
                let response = try await client.get(Self.url("/hockey/Equipment", query), headers: Self.v4)
                #expect(response.status == .badRequest, "\(query): \(response.text.prefix(300))")
                #expect(response.json["error"]?["message"]?.stringValue?.contains(hint) == true, "\(query): \(response.text.prefix(300))")
            }
            for query in ["$apply=topcount(2,price)", "$apply=groupby((rollup(brand,model)))", "$apply=aggregate(price with sum from brand with average as X)"] {
                let response = try await client.get(Self.url("/hockey/Equipment", query), headers: Self.v4)
                #expect(response.status == .notImplemented, "\(query): \(response.text.prefix(300))")
                #expect(response.json["error"]?["message"]?.stringValue?.contains("Strata supports aggregate") == true, "\(query)")
            }
            let v2 = try await client.get(Self.url("/hockey/Equipment", "$apply=aggregate($count as N)"))
            #expect(v2.status == .badRequest)
            #expect(v2.odataError?.message.contains("V4") == true, "\(v2.text.prefix(300))")
        }
    }
}
