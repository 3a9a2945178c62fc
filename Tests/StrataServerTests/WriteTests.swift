import Foundation
import HTTPTypes
import HummingbirdTesting
import StrataCore
import Testing

/// Create, replace, merge, patch and delete, end to end on both databases.
@Suite("Writes")
struct WriteTests {
    @Test("POST answers 201 with Location, ETag and the stored entity, as a GET returns it (seed 003)", arguments: Backend.allCases)
    func create(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let before = try await client.count("/cardealer/Person")
            let response = try await client.post("/cardealer/Person", #"{"firstName":"Ann","lastName":"Lee","ssn":"123-45-6789"}"#)
            #expect(response.status == .created, "\(response.text)")
            let created = response.json["d"]
            guard case .number(let id)? = created["personID"] else {
                Issue.record("no generated key in \(response.text)")
                return
            }
            #expect(response.headers[.location] == "http://localhost/cardealer/Person(\(id))")
            #expect(created["firstName"]?.stringValue == "Ann")
            #expect(created["ssn"]?.stringValue == "123-45-6789")
            // The database default filled createDate, and the echo shows it.
            #expect(created["createDate"]?.stringValue?.hasPrefix("/Date(") == true)
            #expect(created["__metadata"]["uri"]?.stringValue == "http://localhost/cardealer/Person(\(id))")
            #expect(created["__metadata"]["etag"]?.stringValue == response.headers[.eTag])
            #expect(try await client.count("/cardealer/Person") == before + 1)

            let read = try await client.get("/cardealer/Person(\(id))")
            #expect(read.json["d"] == created)
            #expect(read.headers[.eTag] == response.headers[.eTag])
        }
    }

    @Test("POST accepts the verbose {\"d\":…} wrapper with __metadata, and OData JSON value forms", arguments: Backend.allCases)
    func createVerbose(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let body = #"{"d":{"__metadata":{"type":"edmexampleModel.Car"},"make":"Saab","model":"900","manufactureDate":"\/Date(1099242508440)\/"}}"#
            let response = try await client.post("/cardealer/Car", body)
            #expect(response.status == .created, "\(response.text)")
            #expect(response.json["d"]["manufactureDate"]?.stringValue == "/Date(1099242508440)/")
            // ISO 8601 works too.
            let iso = try await client.post("/cardealer/Car", #"{"make":"Saab","model":"9000","manufactureDate":"2004-10-31T17:08:28.440"}"#)
            #expect(iso.json["d"]["manufactureDate"]?.stringValue == "/Date(1099242508440)/")
        }
    }

    @Test("POST to a navigation creates the entity linked to its parent", arguments: Backend.allCases)
    func createThroughNavigation(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let response = try await client.post("/cardealer/Person(1)/PersonCar", #"{"carID":5}"#)
            #expect(response.status == .created, "\(response.text)")
            #expect(response.json["d"]["personID"] == .number("1"))
            let links = try await client.get("/cardealer/Person(1)/PersonCar")
            #expect(links.json["d"]["results"]?.arrayValue?.count == 3)

            try await client.expectRefused(.notFound, unchanged: ["/cardealer/PersonCar/$count"]) {
                try await client.post("/cardealer/Person(999999)/PersonCar", #"{"carID":5}"#)
            }
        }
    }

    @Test("PUT replaces: omitted properties return to their default or null", arguments: Backend.allCases)
    func replace(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let response = try await client.put("/cardealer/Person(1)", #"{"firstName":"Robert","lastName":"Samson"}"#)
            #expect(response.status == .noContent, "\(response.text)")
            #expect(response.headers[.eTag] != nil)
            let person = try await client.get("/cardealer/Person(1)")
            #expect(person.json["d"]["firstName"]?.stringValue == "Robert")
            #expect(person.json["d"]["ssn"] == .null)
            // createDate has a default (now), which replaced the seed's 2009 value.
            #expect(person.json["d"]["createDate"]?.stringValue != "/Date(1257008908440)/")
            #expect(person.json["d"]["createDate"]?.stringValue?.hasPrefix("/Date(") == true)
            #expect(person.headers[.eTag] == response.headers[.eTag])
        }
    }

    @Test("MERGE and PATCH change only the properties sent; POST tunnels them with X-HTTP-Method", arguments: Backend.allCases)
    func mergeAndPatch(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let merged = try await client.merge("/cardealer/Person(1)", #"{"ssn":"111-22-3333"}"#)
            #expect(merged.status == .noContent, "\(merged.text)")
            var person = try await client.get("/cardealer/Person(1)").json["d"]
            #expect(person["ssn"]?.stringValue == "111-22-3333")
            #expect(person["firstName"]?.stringValue == "Bob")
            #expect(person["createDate"]?.stringValue == "/Date(1257008908440)/")

            let patched = try await client.send(.patch, "/cardealer/Person(1)", headers: [.contentType: "application/json"], body: #"{"lastName":"Samsonite"}"#)
            #expect(patched.status == .noContent)
            let tunnelled = try await client.send(.post, "/cardealer/Person(1)", headers: [.xHTTPMethod: "MERGE"], body: #"{"firstName":"Bobby"}"#)
            #expect(tunnelled.status == .noContent, "\(tunnelled.text)")
            person = try await client.get("/cardealer/Person(1)").json["d"]
            #expect(person["lastName"]?.stringValue == "Samsonite")
            #expect(person["firstName"]?.stringValue == "Bobby")
            #expect(person["ssn"]?.stringValue == "111-22-3333")

            // Repeating the key unchanged is fine; changing it is refused.
            let sameKey = try await client.merge("/cardealer/Person(1)", #"{"personID":1,"firstName":"Bob"}"#)
            #expect(sameKey.status == .noContent)
            try await client.expectRefused(.badRequest, unchanged: ["/cardealer/Person(1)", "/cardealer/Person(2)"], messageContains: "personID") {
                try await client.merge("/cardealer/Person(1)", #"{"personID":2,"firstName":"Robert"}"#)
            }
            try await client.expectRefused(.badRequest, unchanged: ["/cardealer/Person(1)"]) {
                try await client.send(.post, "/cardealer/Person(1)", headers: [.xHTTPMethod: "TRACE"], body: "{}")
            }
        }
    }

    @Test("DELETE answers 204, then the entity is gone; tunnelled DELETE works", arguments: Backend.allCases)
    func delete(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let before = try await client.count("/cardealer/Person")
            let first = try await client.post("/cardealer/Person", #"{"firstName":"Temp","lastName":"One"}"#)
            let second = try await client.post("/cardealer/Person", #"{"firstName":"Temp","lastName":"Two"}"#)
            let firstURI = try #require(first.headers[.location]).replacingOccurrences(of: "http://localhost", with: "")
            let secondURI = try #require(second.headers[.location]).replacingOccurrences(of: "http://localhost", with: "")

            let deleted = try await client.delete(firstURI)
            #expect(deleted.status == .noContent)
            #expect(try await client.get(firstURI).status == .notFound)
            try await client.expectRefused(.notFound, unchanged: ["/cardealer/Person/$count"]) { try await client.delete(firstURI) }

            let tunnelled = try await client.send(.post, secondURI, headers: [.xHTTPMethod: "DELETE"])
            #expect(tunnelled.status == .noContent)
            #expect(try await client.count("/cardealer/Person") == before)
        }
    }

    @Test("A single property: PUT as JSON, PUT $value as text, DELETE sets null", arguments: Backend.allCases)
    func properties(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let json = try await client.put("/cardealer/Person(1)/firstName", #"{"firstName":"Bobby"}"#)
            #expect(json.status == .noContent, "\(json.text)")
            let raw = try await client.send(.put, "/cardealer/Person(1)/lastName/$value", headers: [.contentType: "text/plain"], body: "Sampson")
            #expect(raw.status == .noContent, "\(raw.text)")
            let cleared = try await client.delete("/cardealer/Person(1)/ssn")
            #expect(cleared.status == .noContent)
            let person = try await client.get("/cardealer/Person(1)").json["d"]
            #expect(person["firstName"]?.stringValue == "Bobby")
            #expect(person["lastName"]?.stringValue == "Sampson")
            #expect(person["ssn"] == .null)

            try await client.expectRefused(.badRequest, unchanged: ["/cardealer/Person(1)"], messageContains: "lastName") {
                try await client.delete("/cardealer/Person(1)/lastName")
            }
            try await client.expectRefused(.badRequest, unchanged: ["/cardealer/Person(1)"], messageContains: "personID") {
                try await client.put("/cardealer/Person(1)/personID", #"{"personID":7}"#)
            }
        }
    }
}

extension HTTPField.Name {
    static let xHTTPMethod = HTTPField.Name("X-HTTP-Method")!
}
