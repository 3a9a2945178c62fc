import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import HTTPTypes
import HummingbirdTesting
@testable import StrataCore
@testable import StrataOData
import Testing

/// OData V4 beside V2 (issue 38), first part: which version a request gets, V4's JSON for reads,
/// CSDL 4.0 `$metadata`, V4's error body, and the service setting that makes V4 the default.
@Suite("OData V4: negotiation and reads")
struct ODataV4ReadTests {
    static let v4: HTTPFields = [HTTPField.Name("OData-MaxVersion")!: "4.0"]
    static let odataVersion = HTTPField.Name("OData-Version")!

    @Test("Negotiation: V4 when asked for (also beside V2's headers, as Power Query sends them); V1/V2 as today; else the service's default")
    func negotiation() {
        typealias Request = ContentNegotiation.VersionRequest
        let cases: [(Request, ODataVersion, ODataVersion, ODataVersion)] = [
            // (request, service default, V1/V2 maximum, expected)
            (Request(), .v2, .v2, .v2),
            (Request(), .v4, .v2, .v4),
            (Request(), .v2, .v1, .v1),
            (Request(odataMaxVersion: "4.0"), .v2, .v2, .v4),
            (Request(odataMaxVersion: "4.01"), .v2, .v2, .v4),
            (Request(odataVersion: "4.0"), .v2, .v2, .v4),
            (Request(accept: "application/json;odata.metadata=minimal"), .v2, .v2, .v4),
            (Request(format: "application/json;odata.metadata=full"), .v2, .v2, .v4),
            (Request(maxDataServiceVersion: "3.0", odataMaxVersion: "4.0"), .v2, .v2, .v4),
            (Request(maxDataServiceVersion: "2.0"), .v4, .v2, .v2),
            (Request(maxDataServiceVersion: "1.0"), .v4, .v2, .v1),
            (Request(dataServiceVersion: "1.0"), .v2, .v2, .v1),
            (Request(maxDataServiceVersion: "3.0"), .v2, .v2, .v2),
            (Request(odataMaxVersion: "3.0"), .v2, .v2, .v2),
            (Request(accept: "application/json"), .v2, .v2, .v2),
        ]
        for (request, serviceDefault, maximum, expected) in cases {
            #expect(ContentNegotiation.version(request, serviceDefault: serviceDefault, serviceMaximum: maximum) == expected,
                    "\(request) with default \(serviceDefault), maximum \(maximum)")
        }
    }

    @Test("A collection in V4 JSON: context, value, ISO dates, numbers, the ETag each entity's own read gives", arguments: Backend.allCases)
    func collection(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let response = try await client.get("/cardealer/Person?$top=2&$orderby=personID", headers: Self.v4)
            #expect(response.status == .ok)
            #expect(response.headers[Self.odataVersion] == "4.0")
            #expect(response.headers[.contentType]?.hasPrefix("application/json;odata.metadata=minimal") == true)
            #expect(response.headers[.dataServiceVersion] == nil)
            let body = response.json
            #expect(body["@odata.context"]?.stringValue == "http://localhost/cardealer/$metadata#Person")
            let people = try #require(body["value"]?.arrayValue)
            #expect(people.count == 2)
            #expect(people[0]["personID"] == .number("1"))
            #expect(people[0]["firstName"]?.stringValue == "Bob")
            #expect(people[0]["createDate"]?.stringValue == "2009-10-31T17:08:28.440Z")
            #expect(people[0]["__metadata"] == nil && people[0]["PersonCar"] == nil)
            let single = try await client.get("/cardealer/Person(1)", headers: Self.v4)
            #expect(people[0]["@odata.etag"]?.stringValue == single.headers[.eTag])
            #expect(single.json["@odata.context"]?.stringValue == "http://localhost/cardealer/$metadata#Person/$entity")
            #expect(single.json["@odata.etag"]?.stringValue == single.headers[.eTag])
        }
    }

    @Test("Every entity set of every demo service: V4 reads the same rows as V2, property by property", arguments: Backend.allCases)
    func sameRowsAsV2(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            var compared = 0
            for service in ["cardealer", "hockey", "speakeasy"] {
                let document = try await client.get("/\(service)/", headers: Self.v4)
                let sets = (document.json["value"]?.arrayValue ?? []).compactMap { $0["url"]?.stringValue }
                #expect(!sets.isEmpty, "\(service): \(document.text.prefix(200))")
                for set in sets {
                    let v2 = try await client.get("/\(service)/\(set)?$top=20")
                    let v4 = try await client.get("/\(service)/\(set)?$top=20", headers: Self.v4)
                    let v2Rows = v2.json["d"]["results"]?.arrayValue ?? []
                    let v4Rows = v4.json["value"]?.arrayValue ?? []
                    #expect(v2Rows.count == v4Rows.count, "\(service)/\(set)")
                    for (old, new) in zip(v2Rows, v4Rows) {
                        let names = (old.objectValue?.keys ?? []).filter { $0 != "__metadata" && old[$0]?["__deferred"] == nil }
                        let newNames = (new.objectValue?.keys ?? []).filter { !$0.hasPrefix("@odata.") }
                        #expect(Set(names) == Set(newNames), "\(service)/\(set)")
                        for name in names {
                            #expect(Self.sameValue(old[name], new[name]), "\(service)/\(set).\(name): V2 \(String(describing: old[name])), V4 \(String(describing: new[name]))")
                        }
                        compared += 1
                    }
                }
            }
            #expect(compared > 50)
        }
    }

    /// V2 and V4 write the same value: numbers as numbers or (Int64, Decimal in V2) strings,
    /// `\/Date(ms)\/` as ISO 8601 in UTC, base64 as base64url.
    static func sameValue(_ v2: JSONValue?, _ v4: JSONValue?) -> Bool {
        switch (v2, v4) {
        case (.string(let text)?, .number(let number)?):
            return Decimal(string: text) == Decimal(string: number)
        case (.string(let text)?, .string(let iso)?) where text.hasPrefix("/Date("):
            let milliseconds = Int64(text.dropFirst(6).prefix { $0.isNumber || $0 == "-" }) ?? .min
            return ODataDateTimeOffset.parse(iso)?.utc.millisecondsSince1970 == milliseconds
        case (.string(let text)?, .string(let other)?) where text != other:
            let url = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            return url == other || ODataTime.parse(text) == ODataTime.parse(other)
        default:
            return v2 == v4
        }
    }

    @Test("$expand inline, $select in the context, full metadata's links, a property, null as 204, $count and $value as text",
          arguments: Backend.allCases)
    func shapes(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let expanded = try await client.get("/cardealer/Person(1)?$expand=PersonCar&$select=firstName,PersonCar", headers: Self.v4)
            #expect(expanded.json["@odata.context"]?.stringValue == "http://localhost/cardealer/$metadata#Person(firstName,PersonCar())/$entity")
            let cars = try #require(expanded.json["PersonCar"]?.arrayValue)
            #expect(!cars.isEmpty && cars[0]["personID"] == .number("1"))
            #expect(expanded.json["lastName"] == nil)

            let full = try await client.get("/cardealer/Person(1)?$format=application/json;odata.metadata=full")
            #expect(full.headers[.contentType]?.contains("odata.metadata=full") == true)
            #expect(full.json["@odata.id"]?.stringValue == "http://localhost/cardealer/Person(1)")
            #expect(full.json["@odata.editLink"]?.stringValue == "Person(1)")
            #expect(full.json["@odata.type"]?.stringValue == "#edmexampleModel.Person")
            #expect(full.json["PersonCar@odata.navigationLink"]?.stringValue == "http://localhost/cardealer/Person(1)/PersonCar")

            let none = try await client.get("/cardealer/Person(1)", headers: [.accept: "application/json;odata.metadata=none"])
            #expect(none.json["@odata.context"] == nil && none.json["@odata.etag"] == nil && none.json["firstName"]?.stringValue == "Bob")

            let property = try await client.get("/cardealer/Person(1)/firstName", headers: Self.v4)
            #expect(property.json["value"]?.stringValue == "Bob")
            #expect(property.json["@odata.context"]?.stringValue == "http://localhost/cardealer/$metadata#Person(1)/firstName")
            let nullCar = try await client.get("/cardealer/Car?$filter=manufactureDate eq null&$top=1", headers: Self.v4)
            if let id = nullCar.json["value"]?[0]?["carID"]?.intValue {
                let null = try await client.get("/cardealer/Car(\(id))/manufactureDate", headers: Self.v4)
                #expect(null.status == .noContent)
            }

            let count = try await client.get("/cardealer/Person/$count", headers: Self.v4)
            #expect(count.text == "300" && count.headers[Self.odataVersion] == "4.0")
            let value = try await client.get("/cardealer/Person(1)/firstName/$value", headers: Self.v4)
            #expect(value.text == "Bob")

            let big = try await client.get("/cardealer/Person(1)", headers: [.accept: "application/json;odata.metadata=minimal;IEEE754Compatible=true"])
            #expect(big.headers[.contentType]?.contains("IEEE754Compatible=true") == true)
            let bad = try await client.get("/cardealer/Person(1)", headers: [.accept: "application/json;odata.metadata=most"])
            #expect(bad.status == .badRequest && bad.json["error"]["message"]?.stringValue?.contains("minimal, full or none") == true)
        }
    }

    @Test("$count=true counts in V4 (@odata.count, as a number); $inlinecount is V2's and refused in V4 with the V4 spelling",
          arguments: Backend.allCases)
    func count(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let counted = try await client.get("/cardealer/Person?$count=true&$top=1&$filter=personID le 10", headers: Self.v4)
            #expect(counted.json["@odata.count"] == .number("10"), "\(counted.text.prefix(300))")
            #expect(counted.json["value"]?.arrayValue?.count == 1)
            let uncounted = try await client.get("/cardealer/Person?$count=false&$top=1", headers: Self.v4)
            #expect(uncounted.json["@odata.count"] == nil)
            let old = try await client.get("/cardealer/Person?$inlinecount=allpages&$top=1", headers: Self.v4)
            #expect(old.status == .badRequest && old.json["error"]["message"]?.stringValue?.contains("$count=true") == true)
            let bad = try await client.get("/cardealer/Person?$count=maybe", headers: Self.v4)
            #expect(bad.status == .badRequest && bad.json["error"]["message"]?.stringValue?.contains("true or false") == true)
            // V2 keeps its own options: $count is not one of them.
            let v2 = try await client.get("/cardealer/Person?$count=true")
            #expect(v2.status == .badRequest && v2.text.contains("OData V2 defines"))
        }
    }

    @Test("Server-driven paging: @odata.nextLink carries on where the page stopped, in V4 too", arguments: Backend.allCases)
    func paging(_ backend: Backend) async throws {
        try await withServer(backend, pageSize: 7) { client in
            var url = "/cardealer/Person?$orderby=personID"
            var ids: [Int] = []
            while true {
                let page = try await client.get(url, headers: Self.v4)
                ids += (page.json["value"]?.arrayValue ?? []).compactMap { $0["personID"]?.intValue }
                guard let next = page.json["@odata.nextLink"]?.stringValue else { break }
                url = String(next.dropFirst("http://localhost".count))
                #expect(ids.count < 400, "paging does not end")
                if ids.count >= 400 { break }
            }
            #expect(ids == Array(1...300))
        }
    }

    @Test("Prefer: odata.maxpagesize makes pages smaller, never larger than the service's; Preference-Applied says when it was used",
          arguments: Backend.allCases)
    func maxPageSize(_ backend: Backend) async throws {
        try await withServer(backend, pageSize: 50) { client in
            func page(_ url: String, prefer: String?) async throws -> (ids: [Int], next: String?, applied: String?) {
                var headers = Self.v4
                if let prefer { headers[HTTPField.Name("Prefer")!] = prefer }
                let response = try await client.get(url, headers: headers)
                #expect(response.status == .ok, "\(response.text.prefix(300))")
                return ((response.json["value"]?.arrayValue ?? []).compactMap { $0["personID"]?.intValue },
                        response.json["@odata.nextLink"]?.stringValue.map { String($0.dropFirst("http://localhost".count)) },
                        response.headers[HTTPField.Name("Preference-Applied")!])
            }
            let smaller = try await page("/cardealer/Person?$orderby=personID", prefer: "odata.maxpagesize=20")
            #expect(smaller.ids == Array(1...20))
            #expect(smaller.applied == "odata.maxpagesize=20")
            // A client that repeats the preference keeps getting pages of its size.
            let second = try await page(try #require(smaller.next), prefer: "odata.maxpagesize=20")
            #expect(second.ids == Array(21...40))
            // One that does not gets the service's size, from where it stopped.
            let plain = try await page(try #require(second.next), prefer: nil)
            #expect(plain.ids == Array(41...90))
            #expect(plain.applied == nil)
            // Larger than the service's page size: the service's size, and no Preference-Applied.
            let larger = try await page("/cardealer/Person?$orderby=personID", prefer: "odata.maxpagesize=1000")
            #expect(larger.ids == Array(1...50))
            #expect(larger.applied == nil)
            // With tracking, both are applied; a value that is not a positive number is ignored.
            let both = try await page("/cardealer/Person?$orderby=personID", prefer: "odata.track-changes, odata.maxpagesize=5")
            #expect(both.ids == Array(1...5))
            #expect(both.applied == "odata.track-changes, odata.maxpagesize=5")
            for ignored in ["odata.maxpagesize=0", "odata.maxpagesize=-3", "odata.maxpagesize=many", "odata.maxpagesize"] {
                let response = try await page("/cardealer/Person?$orderby=personID", prefer: ignored)
                #expect(response.ids == Array(1...50), "\(ignored)")
                #expect(response.applied == nil, "\(ignored)")
            }
            // $apply's groups are paged the same way.
            var headers = Self.v4
            headers[HTTPField.Name("Prefer")!] = "odata.maxpagesize=3"
            let groups = try await client.get("/cardealer/Person?$apply=groupby((lastName))&$orderby=lastName", headers: headers)
            #expect(groups.json["value"]?.arrayValue?.count == 3, "\(groups.text.prefix(300))")
            #expect(groups.json["@odata.nextLink"] != nil)
        }
    }

    @Test("$metadata in CSDL 4.0: every set with its type and navigation bindings, partners, V4's type names", arguments: Backend.allCases)
    func metadata(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let v2 = try await client.get("/cardealer/$metadata")
            let response = try await client.get("/cardealer/$metadata", headers: Self.v4)
            #expect(response.headers[Self.odataVersion] == "4.0")
            let xml = try EDMX(response.text)
            #expect(try xml.values("/*[local-name()='Edmx']/@Version") == ["4.0"])
            #expect(response.text.contains(#"<Schema Namespace="edmexampleModel" xmlns="http://docs.oasis-open.org/odata/ns/edm">"#))
            let old = try EDMX(v2.text)
            #expect(Set(try xml.values("//*[local-name()='EntitySet']/@Name")) == Set(try old.values("//*[local-name()='EntitySet']/@Name")))
            #expect(try xml.values("//*[local-name()='EntitySet'][@Name='Person']/*[local-name()='NavigationPropertyBinding']/@Target") == ["PersonCar"])
            #expect(try xml.values("//*[local-name()='EntityType'][@Name='PersonCar']/*[local-name()='NavigationProperty'][@Name='Person']/@Partner") == ["PersonCar"])
            #expect(try xml.values("//*[local-name()='EntityType'][@Name='PersonCar']/*[local-name()='NavigationProperty'][@Name='Person']/*[local-name()='ReferentialConstraint']/@Property") == ["personID"])
            #expect(try xml.values("//*[local-name()='EntityType'][@Name='Person']/*[local-name()='NavigationProperty']/@Type") == ["Collection(edmexampleModel.PersonCar)"])
            #expect(try xml.values("//*[local-name()='Property'][@Name='createDate']/@Type") == ["Edm.DateTimeOffset"])
            #expect(!response.text.contains("Edm.DateTime\""))
            #expect(try xml.values("//*[local-name()='Property'][@Name='personID']/*[local-name()='Annotation']/@Term") == ["Core.Computed"])
        }
    }

    @Test("Errors in V4's shape for V4 requests, V2's unchanged",
          arguments: Backend.allCases)
    func errorsAndUnservedParts(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let missing = try await client.get("/cardealer/Nope", headers: Self.v4)
            #expect(missing.status == .notFound)
            #expect(missing.json["error"]["code"]?.stringValue == "ResourceNotFound")
            #expect(missing.json["error"]["message"]?.stringValue?.contains("Nope") == true)
            #expect(missing.headers[Self.odataVersion] == "4.0")
            let noService = try await client.get("/nosuch/Person", headers: Self.v4)
            #expect(noService.status == .notFound && noService.json["error"]["message"]?.stringValue != nil)
            let old = try await client.get("/cardealer/Nope")
            #expect(old.json["error"]["message"]["value"]?.stringValue?.contains("Nope") == true)

        }
    }

    @Test("The service setting odataVersion 4.0 answers requests that name no version in V4; those that name V2 keep it",
          arguments: Backend.allCases)
    func serviceDefault(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let set = try await client.send(.put, "/admin/services", headers: [.contentType: "application/json"],
                                            body: #"{"service":"cardealer","odataVersion":"4.0"}"#)
            #expect(set.status == .ok, "\(set.text)")
            #expect(set.json["cardealer"]["odataVersion"]?.stringValue == "4.0")
            let plain = try await client.get("/cardealer/Person(1)")
            #expect(plain.headers[Self.odataVersion] == "4.0" && plain.json["firstName"]?.stringValue == "Bob")
            let metadata = try await client.get("/cardealer/$metadata")
            #expect(metadata.text.contains("http://docs.oasis-open.org/odata/ns/edm"))
            let v2 = try await client.get("/cardealer/Person(1)", headers: [.maxDataServiceVersion: "2.0"])
            #expect(v2.json["d"]["firstName"]?.stringValue == "Bob")
            // Other services keep V2.
            #expect(try await client.get("/hockey/").json["d"]["EntitySets"] != nil)
            let refused = try await client.send(.put, "/admin/services", headers: [.contentType: "application/json"],
                                                body: #"{"service":"cardealer","odataVersion":"3.0"}"#)
            #expect(refused.status == .badRequest && refused.text.contains("2.0 or 4.0"))
        }
    }
}
