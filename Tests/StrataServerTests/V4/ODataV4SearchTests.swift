import Foundation
import HTTPTypes
import HummingbirdTesting
@testable import StrataCore
import StrataIdentity
@testable import StrataServer
import Testing

/// V4's `$search` (issue 38): a term matches an entity when one of the string properties the caller
/// may read contains it, ignoring case; AND, OR, NOT and phrases combine terms; the search is a
/// filter like any other (row filters, `$filter`, `$count`, paging), and it never looks into a column
/// the caller cannot read.
@Suite("OData V4: $search")
struct ODataV4SearchTests {
    static let v4 = ODataV4ApplyTests.v4

    /// What Strata's rule says for one person and one search, computed here from the plain rows.
    static func matches(_ search: SearchExpression, _ person: JSONValue, columns: [String]) -> Bool {
        switch search {
        case .term(let text):
            return columns.contains { (person[$0]?.stringValue ?? "").lowercased().contains(text.lowercased()) && person[$0]?.stringValue != nil }
        case .not(let operand): return !matches(operand, person, columns: columns)
        case .and(let left, let right): return matches(left, person, columns: columns) && matches(right, person, columns: columns)
        case .or(let left, let right): return matches(left, person, columns: columns) || matches(right, person, columns: columns)
        }
    }

    @Test("$search finds what the rule says, with phrases, AND, OR, NOT, $filter, $count and paging", arguments: Backend.allCases)
    func searches(_ backend: Backend) async throws {
        try await withServer(backend, pageSize: 40) { client in
            let people = try await ODataV4ApplyTests.all(client, "/cardealer/Person?$orderby=personID")
            #expect(people.count == 300)
            let strings = ["firstName", "lastName", "ssn"]
            #expect(strings.allSatisfy { people[0][$0]?.stringValue != nil })
            let someone = people[17]
            let first = try #require(someone["firstName"]?.stringValue), last = try #require(someone["lastName"]?.stringValue)
            let searches = [
                "an", "AN", "\"\(first) \"", "\(first.lowercased()) \(last.uppercased())", "an OR el", "an NOT el", "NOT an",
                "(an OR el) NOT (ri OR \(last))", "\(String(someone["ssn"]?.stringValue?.prefix(4) ?? "0"))", "zzzqqq", "NOT zzzqqq",
            ]
            for text in searches {
                let parsed = try #require(try QueryOptions(parsing: "$search=" + text.replacingOccurrences(of: " ", with: "%20")
                    .replacingOccurrences(of: "\"", with: "%22"), limits: .default, version: .v4).search)
                let expected = people.filter { Self.matches(parsed, $0, columns: strings) }.compactMap { $0["personID"]?.intValue }
                let query = "$search=\(text)&$orderby=personID&$count=true".replacingOccurrences(of: " ", with: "%20").replacingOccurrences(of: "\"", with: "%22")
                let found = try await ODataV4ApplyTests.all(client, "/cardealer/Person?" + query)
                #expect(found.compactMap { $0["personID"]?.intValue } == expected, "\(text)")
                let counted = try await client.get("/cardealer/Person?" + query, headers: Self.v4)
                #expect(counted.json["@odata.count"]?.intValue == expected.count, "\(text)")
                let count = try await client.get("/cardealer/Person/$count?" + query.replacingOccurrences(of: "&$count=true", with: ""), headers: Self.v4)
                #expect(Int(count.text) == expected.count, "\(text): \(count.text.prefix(200))")
            }
            // Some searches must find something and some must not, or the comparison proves little.
            #expect(people.contains { Self.matches(.term("an"), $0, columns: strings) })
            // With $filter: both hold.
            let both = try await ODataV4ApplyTests.all(client, "/cardealer/Person?$search=an&$filter=personID%20lt%20100&$orderby=personID")
            #expect(both.compactMap { $0["personID"]?.intValue }
                    == people.filter { Self.matches(.term("an"), $0, columns: strings) && ($0["personID"]?.intValue ?? 0) < 100 }.compactMap { $0["personID"]?.intValue })
        }
    }

    @Test("$search never looks into a column the caller may not read; misuse is a 400 that says why", arguments: Backend.allCases)
    func restrictedAndRefused(_ backend: Backend) async throws {
        try await withAuthServer(backend, setup: { admin in
            try await admin.addUser("clerk", password: "pw-clerk", roles: [RoleAssignment(role: "clerk")])
            try await admin.grant(role: "clerk", service: "cardealer", table: nil, actions: [.read], rowFilter: nil)
        }) { client in
            let admin = basic(TestAccounts.admin) + Self.v4
            let clerk = basic("clerk", "pw-clerk") + Self.v4
            // A number only social security numbers hold.
            let people = try await ODataV4ApplyTests.all(client, "/cardealer/Person?$orderby=personID", headers: admin)
            let ssn = try #require(people.compactMap { $0["ssn"]?.stringValue }.first { ssn in
                !people.contains { ($0["firstName"]?.stringValue ?? "").contains(ssn) || ($0["lastName"]?.stringValue ?? "").contains(ssn) }
            })
            let asAdmin = try await client.get("/cardealer/Person/$count?$search=\(ssn)", headers: admin)
            #expect(Int(asAdmin.text) ?? 0 >= 1, "\(asAdmin.text.prefix(200))")
            let asClerk = try await client.get("/cardealer/Person/$count?$search=\(ssn)", headers: clerk)
            #expect(asClerk.status == .ok && asClerk.text == "0", "\(asClerk.text.prefix(200))")

            for (uri, message) in [
                ("/cardealer/Person?$search=an&$apply=groupby((lastName))", "$search cannot be combined with $apply"),
                ("/cardealer/Person(1)?$search=an", "$search cannot be applied to a single entity"),
                ("/cardealer/Person(1)/lastName?$search=an", "$search cannot be applied to a property"),
                ("/cardealer/Person?$search=%22an", "no closing"),
                ("/cardealer/Person?$search=", "$search is empty"),
            ] {
                let response = try await client.get(uri, headers: admin)
                #expect(response.status == .badRequest, "\(uri): \(response.text.prefix(300))")
                #expect(response.json["error"]?["message"]?.stringValue?.contains(message) == true, "\(uri): \(response.text.prefix(300))")
            }
            let v2 = try await client.get("/cardealer/Person?$search=an", headers: basic(TestAccounts.admin))
            #expect(v2.status == .badRequest && v2.text.contains("OData-MaxVersion: 4.0"), "\(v2.text.prefix(300))")
        }
    }
}
