import Foundation
import StrataClient
import Testing

/// Writes in V4 against a live server of their own: POST, PATCH with If-Match, PUT, DELETE,
/// `@odata.bind` and `$ref`.
@Suite("V4: writes against a live server")
struct V4LiveWriteTests {
    struct NewPerson: Encodable { var firstName: String; var lastName: String; var ssn: String? }
    struct PersonChanges: Encodable { var ssn: String?; var lastName: String? }
    struct NewCar: Encodable { var make: String; var model: String; var manufactureDate: Date? }
    struct Car: Decodable, Equatable { var carID: Int; var make: String; var model: String; var manufactureDate: Date? }
    struct Nothing: Encodable {}

    @Test("create POSTs V4 JSON and returns the stored entity with its id and ETag; dates travel in ISO 8601")
    func create() async throws {
        try await withFreshServer { server in
            let service = try await server.signedInService("cardealer", maxVersion: .v4)
            let recorder = await RequestRecorder.on(service)
            let created = try await service.set("Person").create(NewPerson(firstName: "Ann", lastName: "Lee", ssn: "123-45-6789"))
            let sent = try #require(recorder.last)
            #expect(sent.method == .post)
            #expect(sent.headers["OData-Version"] == "4.0")
            let id = try created.value("personID", as: Int.self)
            #expect(created.uri?.path == "/cardealer/Person(\(id))")
            #expect(created.etag != nil)
            #expect(try created.value("createDate", as: Date.self) > Date(timeIntervalSince1970: 1_600_000_000))
            #expect(try await service.set("Person").key(id).get(as: TypedPerson.self) == (try created.decode(as: TypedPerson.self)))

            let date = Date(timeIntervalSince1970: 1_099_242_508.44)
            let car = try await service.set("Car").create(NewCar(make: "Saab", model: "900", manufactureDate: date), as: Car.self)
            let body = String(decoding: try #require(recorder.last?.body), as: UTF8.self)
            #expect(body.contains("\"2004-10-31T17:08:28.440Z\""), "\(body)")
            #expect(car.manufactureDate == date)
            // The same car read through V2 has the same values.
            let v2 = try await server.signedInService("cardealer")
            #expect(try await v2.set("Car").key(car.carID).get(as: Car.self) == car)
            let dynamic = try await service.set("Car").create(properties: ["make": "Volvo", "model": "V70", "manufactureDate": ODataValue.null])
            #expect(dynamic["manufactureDate"] == .null)
        }
    }

    @Test("update PATCHes with the tracked ETag as If-Match; replace PUTs; delete removes")
    func updateReplaceDelete() async throws {
        try await withFreshServer { server in
            let service = try await server.signedInService("cardealer", maxVersion: .v4)
            let bob = service.set("Person").key(1)
            let read = try await bob.get()
            let newETag = try await bob.update(PersonChanges(ssn: "111-22-3333", lastName: nil))
            let sent = try #require(await service.connection.lastExchange?.request)
            #expect(sent.method == .patch)
            #expect(sent.headers["If-Match"] == read.etag)
            #expect(sent.headers["OData-Version"] == "4.0")
            var person = try await bob.get(as: TypedPerson.self)
            #expect(person.ssn == "111-22-3333" && person.lastName == "Samson")
            #expect(newETag != nil && newETag != read.etag)
            #expect(try await bob.get().etag == newETag)

            try await bob.update(properties: ["ssn": ODataValue.null])
            #expect(try await bob.get(as: TypedPerson.self).ssn == nil)

            try await bob.replace(with: NewPerson(firstName: "Robert", lastName: "Samson", ssn: nil))
            #expect(await service.connection.lastExchange?.request.method == .put)
            person = try await bob.get(as: TypedPerson.self)
            #expect(person.firstName == "Robert")

            let temp = try await service.set("Person").create(NewPerson(firstName: "Temp", lastName: "One"))
            let tempQuery = service.set("Person").key(try temp.value("personID", as: Int.self))
            try await tempQuery.delete()
            do {
                _ = try await tempQuery.get()
                Issue.record("a deleted entity was read")
            } catch let error as StrataError {
                #expect(error.kind == .notFound)
            }
        }
    }

    @Test("A stale ETag in V4 is a typed conflict carrying the server's entity")
    func etagConflict() async throws {
        try await withFreshServer { server in
            let alice = try await server.signedInService("cardealer", maxVersion: .v4)
            let bob = try await server.signedInService("cardealer", maxVersion: .v4)
            // Bob's ETag comes from a collection read: minimal metadata's entities get their ids from the model.
            let bobs = try await bob.set("Person").filter(parsing: "personID eq 2").all()
            #expect(bobs.first?.uri?.path == "/cardealer/Person(2)")
            try await alice.set("Person").key(2).update(PersonChanges(ssn: "alice", lastName: nil))
            do {
                try await bob.set("Person").key(2).update(PersonChanges(ssn: "bob", lastName: nil))
                Issue.record("a stale update was applied")
            } catch let error as StrataError {
                #expect(error.kind == .preconditionFailed && error.status == 412)
                #expect(!error.message.isEmpty)
                #expect(error.currentEntity?["ssn"] == .string("alice"))
            }
            try await bob.set("Person").key(2).update(PersonChanges(ssn: "bob", lastName: nil))
            #expect(try await alice.set("Person").key(2).get()["ssn"] == .string("bob"))
        }
    }

    @Test("Links in V4: @odata.bind on create and update, $ref to list, add, set and remove — and V2's forms of the same calls")
    func links() async throws {
        try await withFreshServer { server in
            for version in [ODataVersion.v4, .v2] {
                let service = try await server.signedInService("cardealer", maxVersion: version)
                let recorder = await RequestRecorder.on(service)
                let link = try await service.set("PersonCar").create(Nothing(), binding: [
                    .to("Person", service.set("Person").key(4)),
                    .to("Car", service.set("Car").key(5)),
                ])
                if version.isV4 {
                    let body = String(decoding: try #require(recorder.last?.body), as: UTF8.self)
                    #expect(body.contains("\"Person@odata.bind\":\"http://localhost:\(server.port)/cardealer/Person(4)\""), "\(body)")
                }
                #expect(link["personID"] == .int32(4) && link["carID"] == .int32(5), "\(version)")
                let linkQuery = service.set("PersonCar").key(try link.value("personCarID", as: Int.self))
                try await linkQuery.update(Nothing(), binding: [.to("Car", service.set("Car").key(6))])
                #expect(try await linkQuery.get()["carID"] == .int32(6), "\(version)")

                let owner = service.set("Person").key(4)
                let before = try await owner.links("PersonCar")
                let path = try linkQuery.url().path
                #expect(before.contains { $0.path == path }, "\(version)")
                if version.isV4 { #expect(recorder.last?.url.path.hasSuffix("/PersonCar/$ref") == true) }
                try await service.set("Person").key(5).addLink("PersonCar", to: linkQuery)
                #expect(try await linkQuery.get()["personID"] == .int32(5), "\(version)")
                try await linkQuery.setLink("Car", to: service.set("Car").key(7))
                #expect(try await linkQuery.links("Car").map(\.path) == ["/cardealer/Car(7)"], "\(version)")
                #expect(try await linkQuery.navigate("Car").get()["carID"] == .int32(7), "\(version)")
                // Removing a required link is refused, in V4 ($ref?$id=) as in V2, with the server's message.
                let linkPath = try linkQuery.url().path
                do {
                    try await service.set("Person").key(5).removeLink("PersonCar", to: linkQuery)
                    Issue.record("\(version): a required link was removed")
                } catch let error as StrataError {
                    #expect(error.status == 409 && error.message.contains("cannot be removed"), "\(version): \(error)")
                }
                #expect(try await service.set("Person").key(5).links("PersonCar").contains { $0.path == linkPath }, "\(version)")
            }
        }
    }

    @Test("A write refused in V4 is a typed error with the server's message")
    func refusedWrite() async throws {
        try await withFreshServer { server in
            let service = try await server.signedInService("cardealer", maxVersion: .v4)
            do {
                try await service.set("Person").create(properties: ["nothing": "x"])
                Issue.record("an unknown property was accepted")
            } catch let error as StrataError {
                #expect(error.kind == .badRequest && error.status == 400)
                #expect(error.message.contains("nothing"), "\(error.message)")
            }
        }
    }
}
