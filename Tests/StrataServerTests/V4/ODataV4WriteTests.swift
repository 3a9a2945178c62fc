import Foundation
import HTTPTypes
import HummingbirdTesting
import StrataCore
import Testing

/// OData V4 writes (issue 38): V4 bodies (`@odata.bind`, annotations, `{"value":…}` for a property),
/// V4 answers (201 with the entity in V4 JSON, or 204 and `OData-EntityId` for `return=minimal`),
/// the same checks and rights as V2's writes.
@Suite("OData V4: writes")
struct ODataV4WriteTests {
    static let v4: HTTPFields = [HTTPField.Name("OData-MaxVersion")!: "4.0", .contentType: "application/json"]
    static let entityID = HTTPField.Name("OData-EntityId")!

    static func counts(_ client: any TestClientProtocol) async throws -> [String] {
        var counts: [String] = []
        for set in ["Person", "PersonCar", "Car"] { counts.append(try await client.get("/cardealer/\(set)/$count").text) }
        return counts
    }

    @Test("POST with @odata.bind and a deep insert: 201 with the created tree in V4 JSON and its Location", arguments: Backend.allCases)
    func create(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let before = try await Self.counts(client)
            let body = #"""
                {"@odata.type":"#edmexampleModel.Person","firstName":"Ann","lastName":"Four","createDate":"2020-05-01T10:00:00Z",
                 "PersonCar":[{"Car":{"make":"Volvo","model":"240"}}],
                 "PersonCar@odata.bind":["PersonCar(1)"]}
                """#
            let created = try await client.send(.post, "/cardealer/Person", headers: Self.v4, body: body)
            #expect(created.status == .created, "\(created.text)")
            #expect(created.headers[HTTPField.Name("OData-Version")!] == "4.0")
            let person = created.json
            #expect(person["@odata.context"]?.stringValue == "http://localhost/cardealer/$metadata#Person/$entity")
            #expect(person["createDate"]?.stringValue == "2020-05-01T10:00:00Z")
            #expect(person["__metadata"] == nil && person["d"] == nil)
            let cars = try #require(person["PersonCar"]?.arrayValue)
            #expect(cars.count == 2 && cars.allSatisfy { $0["personID"] == person["personID"] }, "\(created.text)")
            #expect(cars.contains { $0["Car"]?["make"]?.stringValue == "Volvo" })
            #expect(cars.contains { $0["personCarID"] == .number("1") })
            let location = try #require(created.headers[.location])
            #expect(location == "http://localhost/cardealer/Person(\(person["personID"]?.intValue ?? -1))")
            let after = try await Self.counts(client)
            #expect(Int(after[0]) == Int(before[0])! + 1 && Int(after[1]) == Int(before[1])! + 1 && Int(after[2]) == Int(before[2])! + 1)
        }
    }

    @Test("A refused property is named in the V4 error's target (V2's error body stays as it was); nothing is written",
          arguments: Backend.allCases)
    func errorTarget(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let before = try await client.get("/cardealer/Person(1)?$select=firstName").text
            for (body, target) in [(#"{"firstName":5}"#, "firstName"), (#"{"lastName":null}"#, "lastName"),
                                   (#"{"firstName":"\#(String(repeating: "x", count: 60))"}"#, "firstName"), (#"{"personID":77}"#, "personID")] {
                let refused = try await client.send(.patch, "/cardealer/Person(1)", headers: Self.v4, body: body)
                #expect(refused.status == .badRequest, "\(body): \(refused.text)")
                #expect(refused.json["error"]?["target"]?.stringValue == target, "\(body): \(refused.text)")
                #expect(refused.json["error"]?["message"]?.stringValue?.contains(target) == true)
            }
            let v2 = try await client.send(.patch, "/cardealer/Person(1)", headers: [.contentType: "application/json"], body: #"{"firstName":5}"#)
            #expect(v2.status == .badRequest && v2.json["error"]?["target"] == nil && v2.json["error"]?["message"]?["value"] != nil, "\(v2.text)")
            #expect(try await client.get("/cardealer/Person(1)?$select=firstName").text == before)
        }
    }

    @Test("Prefer: return=minimal is 204 with OData-EntityId; PATCH, PUT of a property ({\"value\":…}) and DELETE are 204 with V4's header",
          arguments: Backend.allCases)
    func changes(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            var minimal = Self.v4
            minimal[HTTPField.Name("Prefer")!] = "return=minimal"
            let created = try await client.send(.post, "/cardealer/Car", headers: minimal, body: #"{"make":"Saab","model":"900"}"#)
            #expect(created.status == .noContent, "\(created.text)")
            let id = try #require(created.headers[Self.entityID])
            #expect(created.headers[HTTPField.Name("Preference-Applied")!] == "return=minimal")
            #expect(id == created.headers[.location])
            let path = String(id.dropFirst("http://localhost".count))

            let read = try await client.get(path, headers: Self.v4)
            #expect(read.json["make"]?.stringValue == "Saab")
            let etag: String = try #require(read.headers[.eTag])
            var conditional = Self.v4
            conditional[.ifMatch] = etag
            let patched = try await client.send(.patch, path, headers: conditional,
                                                body: #"{"@odata.etag":"ignored","model":"9000"}"#)
            #expect(patched.status == .noContent, "\(patched.text)")
            #expect(patched.headers[HTTPField.Name("OData-Version")!] == "4.0")
            #expect(patched.headers[.eTag] != nil && patched.headers[.eTag] != read.headers[.eTag])
            let stale = try await client.send(.patch, path, headers: conditional, body: #"{"model":"99"}"#)
            #expect(stale.status == .preconditionFailed && stale.json["error"]["message"]?.stringValue != nil)

            let property = try await client.send(.put, path + "/model", headers: Self.v4, body: #"{"@odata.context":"x","value":"9-3"}"#)
            #expect(property.status == .noContent, "\(property.text)")
            #expect(try await client.get(path + "/model", headers: Self.v4).json["value"]?.stringValue == "9-3")
            let named = try await client.send(.put, path + "/model", headers: Self.v4, body: #"{"model":"9-5"}"#)
            #expect(named.status == .badRequest && named.text.contains(#"{\"value\": value}"#), "\(named.text)")

            let deleted = try await client.send(.delete, path, headers: Self.v4)
            #expect(deleted.status == .noContent)
            #expect(try await client.get(path, headers: Self.v4).status == .notFound)
        }
    }

    @Test("Bad V4 bodies are 400s that say what to send, and change nothing", arguments: Backend.allCases)
    func refusals(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let before = try await Self.counts(client)
            let cases: [(String, String, String)] = [
                ("/cardealer/PersonCar", #"{"Person@odata.bind":["Person(1)"],"Car@odata.bind":"Car(2)"}"#, "one entity URL"),
                ("/cardealer/Person", #"{"firstName":"A","lastName":"B","PersonCar@odata.bind":"PersonCar(1)"}"#, "array of entity URLs"),
                ("/cardealer/Person", #"{"firstName":"A","lastName":"B","Nope@odata.bind":"Car(1)"}"#, "no navigation property named 'Nope'"),
                ("/cardealer/PersonCar", #"{"Person@odata.bind":"Car(1)","Car@odata.bind":"Car(2)"}"#, "must refer to an entity of Person"),
                ("/cardealer/Person", #"{"firstName":"A","lastName":"B","nickname":"C"}"#, "no property named 'nickname'"),
            ]
            for (path, body, says) in cases {
                let response = try await client.send(.post, path, headers: Self.v4, body: body)
                #expect(response.status == .badRequest, "\(body): \(response.text)")
                #expect(response.json["error"]["message"]?.stringValue?.contains(says) == true, "\(body): \(response.text)")
            }
            #expect(try await Self.counts(client) == before)
        }
    }

    @Test("$ref: V4's links read as @odata.id, set with PUT and POST {\"@odata.id\":…}, removed by key or $id", arguments: Backend.allCases)
    func references(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let many = try await client.get("/cardealer/Person(1)/PersonCar/$ref", headers: Self.v4)
            #expect(many.json["@odata.context"]?.stringValue == "http://localhost/cardealer/$metadata#Collection($ref)")
            let ids = (many.json["value"]?.arrayValue ?? []).compactMap { $0["@odata.id"]?.stringValue }
            #expect(ids.contains("http://localhost/cardealer/PersonCar(1)"), "\(many.text)")
            let one = try await client.get("/cardealer/PersonCar(1)/Car/$ref", headers: Self.v4)
            #expect(one.json["@odata.id"]?.stringValue == "http://localhost/cardealer/Car(2)", "\(one.text)")

            let put = try await client.send(.put, "/cardealer/PersonCar(1)/Car/$ref", headers: Self.v4, body: #"{"@odata.id":"Car(5)"}"#)
            #expect(put.status == .noContent, "\(put.text)")
            #expect(try await client.get("/cardealer/PersonCar(1)", headers: Self.v4).json["carID"] == .number("5"))
            let post = try await client.send(.post, "/cardealer/Person(2)/PersonCar/$ref", headers: Self.v4,
                                             body: #"{"@odata.id":"http://localhost/cardealer/PersonCar(1)"}"#)
            #expect(post.status == .noContent, "\(post.text)")
            #expect(try await client.get("/cardealer/PersonCar(1)", headers: Self.v4).json["personID"] == .number("2"))
            let v2Body = try await client.send(.put, "/cardealer/PersonCar(1)/Car/$ref", headers: Self.v4, body: #"{"uri":"Car(5)"}"#)
            #expect(v2Body.status == .badRequest && v2Body.text.contains("@odata.id"), "\(v2Body.text)")

            // PersonCar.personID cannot be null: removing the link is refused, found by $id or by key alike.
            let byID = try await client.send(.delete, "/cardealer/Person(2)/PersonCar/$ref?$id=PersonCar(1)", headers: Self.v4)
            #expect(byID.status == .conflict && byID.text.contains("cannot be removed"), "\(byID.text)")
            let byKey = try await client.send(.delete, "/cardealer/Person(2)/PersonCar(1)/$ref", headers: Self.v4)
            #expect(byKey.status == .conflict, "\(byKey.text)")
            let unnamed = try await client.send(.delete, "/cardealer/Person(2)/PersonCar/$ref", headers: Self.v4)
            #expect(unnamed.status == .badRequest && unnamed.text.contains("$ref?$id="), "\(unnamed.text)")
            let wrongSet = try await client.send(.delete, "/cardealer/Person(2)/PersonCar/$ref?$id=Car(1)", headers: Self.v4)
            #expect(wrongSet.status == .badRequest && wrongSet.text.contains("must name an entity of PersonCar"), "\(wrongSet.text)")
            #expect(try await client.get("/cardealer/PersonCar(1)", headers: Self.v4).json["personID"] == .number("2"))
        }
    }
}
