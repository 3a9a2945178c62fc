import Foundation
import StrataClient
import Testing

/// Writes against a live server of their own: create, update, replace, delete, ETag conflicts,
/// links, deep insert and batches.
@Suite("Writes against a live server")
struct WriteTests {
    struct NewPerson: Encodable { var firstName: String; var lastName: String; var ssn: String? }
    struct PersonChanges: Encodable { var ssn: String?; var lastName: String? }
    struct NewCar: Encodable { var make: String; var model: String; var manufactureDate: Date? }
    struct NewLink: Encodable { var Car: NewCar }
    struct NewOwner: Encodable { var firstName: String; var lastName: String; var PersonCar: [NewLink] }

    @Test("create returns the stored entity, with its generated key and defaults, as a GET would")
    func create() async throws {
        try await withFreshServer { server in
            let service = try await server.signedInService("cardealer")
            let created = try await service.set("Person").create(NewPerson(firstName: "Ann", lastName: "Lee", ssn: "123-45-6789"))
            let id = try created.value("personID", as: Int.self)
            #expect(id > 0)
            #expect(created["firstName"] == .string("Ann"))
            #expect(created.uri?.path == "/cardealer/Person(\(id))")
            #expect(try created.value("createDate", as: Date.self) > Date(timeIntervalSince1970: 1_600_000_000))
            let read = try await service.set("Person").key(id).get()
            #expect(read == created)
            let typed = try await service.set("Car").create(NewCar(make: "Saab", model: "900", manufactureDate: Date(timeIntervalSince1970: 1_099_242_508.44)),
                                                            as: QueryOptionTests.Car.self)
            #expect(typed.model == "900")
            let dynamic = try await service.set("Car").create(properties: ["make": "Volvo", "model": "V70", "manufactureDate": ODataValue.null])
            #expect(dynamic["manufactureDate"] == .null)
        }
    }

    @Test("update changes only what it sends, replace resets the rest, delete removes")
    func updateReplaceDelete() async throws {
        try await withFreshServer { server in
            let service = try await server.signedInService("cardealer")
            let bob = service.set("Person").key(1)
            let newETag = try await bob.update(PersonChanges(ssn: "111-22-3333", lastName: nil))
            var person = try await bob.get(as: TypedPerson.self)
            #expect(person.ssn == "111-22-3333")
            #expect(person.lastName == "Samson")
            #expect(try await bob.get().etag == newETag)

            try await bob.update(properties: ["ssn": ODataValue.null])
            #expect(try await bob.get(as: TypedPerson.self).ssn == nil)

            try await bob.replace(with: NewPerson(firstName: "Robert", lastName: "Samson", ssn: nil))
            person = try await bob.get(as: TypedPerson.self)
            #expect(person.firstName == "Robert")
            #expect(person.createDate != Date(timeIntervalSince1970: 1_257_008_908.440), "PUT resets createDate to its default")

            let temp = try await service.set("Person").create(NewPerson(firstName: "Temp", lastName: "One"))
            let tempQuery = service.set("Person").key(try temp.value("personID", as: Int.self))
            try await tempQuery.delete()
            await #expect(throws: StrataError.self) { try await tempQuery.get() }
        }
    }

    @Test("A stale ETag is a typed conflict carrying the server's entity; retrying from it succeeds")
    func etagConflict() async throws {
        try await withFreshServer { server in
            let alice = try await server.signedInService("cardealer")
            let bob = try await server.signedInService("cardealer")
            let first = try await alice.set("Person").key(2).get()
            _ = try await bob.set("Person").key(2).get()
            #expect(first.etag != nil)

            // Alice writes first; her tracked ETag moves on.
            try await alice.set("Person").key(2).update(PersonChanges(ssn: "alice", lastName: nil))
            // Bob still holds the old ETag: refused, nothing changed, and he is shown Alice's version.
            do {
                try await bob.set("Person").key(2).update(PersonChanges(ssn: "bob", lastName: nil))
                Issue.record("a stale update was applied")
            } catch let error as StrataError {
                #expect(error.kind == .preconditionFailed)
                #expect(error.status == 412)
                #expect(error.currentEntity?["ssn"] == .string("alice"))
                #expect(error.currentEntity?.etag != first.etag)
            }
            // The conflict refreshed Bob's tracked ETag, so his retry goes through.
            try await bob.set("Person").key(2).update(PersonChanges(ssn: "bob", lastName: nil))
            #expect(try await alice.set("Person").key(2).get()["ssn"] == .string("bob"))
            // An explicit stale ETag is refused too, If-Match: * is not.
            await #expect(throws: StrataError.self) {
                try await alice.set("Person").key(2).delete(ifMatch: .etag(first.etag!))
            }
            try await alice.set("Person").key(3).update(PersonChanges(ssn: "any", lastName: nil), ifMatch: .any)
        }
    }

    @Test("Eight clients each add 1 five times with read, If-Match and retry on conflict: no update is lost")
    func optimisticCounter() async throws {
        struct PriceChange: Encodable { var price: Decimal }
        try await withFreshServer { server in
            let start = try await server.service("cardealer").set("Maintenance").key(1).get().value("price", as: Decimal.self)
            // Every client reads before anyone writes, so they all start from the same ETag.
            var clients: [DataService] = []
            for _ in 0..<8 { clients.append(try await server.signedInService("cardealer")) }
            for client in clients { _ = try await client.set("Maintenance").key(1).get() }
            let conflicts = try await withThrowingTaskGroup(of: Int.self) { group in
                for client in clients {
                    group.addTask {
                        let oil = client.set("Maintenance").key(1)
                        var current = start
                        var conflicts = 0
                        for round in 0..<5 {
                            if round > 0 { current = try await oil.get().value("price", as: Decimal.self) }
                            while true {
                                do {
                                    try await oil.update(PriceChange(price: current + 1))
                                    break
                                } catch let error as StrataError where error.kind == .preconditionFailed {
                                    conflicts += 1
                                    current = try #require(error.currentEntity).value("price", as: Decimal.self)
                                }
                            }
                        }
                        return conflicts
                    }
                }
                return try await group.reduce(0, +)
            }
            let end = try await server.service("cardealer").set("Maintenance").key(1).get().value("price", as: Decimal.self)
            #expect(end == start + 40)
            // All eight first updates carried the same ETag: at most one could win.
            #expect(conflicts >= 7)
        }
    }

    @Test("Deep insert creates a person with a car link and the car in one request")
    func deepInsert() async throws {
        try await withFreshServer { server in
            let service = try await server.signedInService("cardealer")
            let owner = try await service.set("Person").create(
                NewOwner(firstName: "Ann", lastName: "Lee", PersonCar: [NewLink(Car: NewCar(make: "Volvo", model: "V70"))]))
            let links = owner.related("PersonCar")
            #expect(links.count == 1)
            #expect(links.first?.relatedEntity("Car")?["model"] == .string("V70"))
            let id = try owner.value("personID", as: Int.self)
            let read = try await service.set("Person").key(id).expand("PersonCar/Car").get()
            #expect(read.related("PersonCar").first?.relatedEntity("Car")?["make"] == .string("Volvo"))
        }
    }

    @Test("$links: list, add, set and remove relationships")
    func links() async throws {
        try await withFreshServer { server in
            let service = try await server.signedInService("cardealer")
            let bob = service.set("Person").key(1)
            let before = try await bob.links("PersonCar")
            #expect(before.map(\.path) == ["/cardealer/PersonCar(1)", "/cardealer/PersonCar(2)"])
            // Moving PersonCar(3) to Bob changes its personID.
            try await bob.addLink("PersonCar", to: service.set("PersonCar").key(3))
            #expect(try await bob.links("PersonCar").count == 3)
            // A to-one link is replaced with PUT.
            try await service.set("PersonCar").key(1).setLink("Car", to: service.set("Car").key(7))
            #expect(try await service.set("PersonCar").key(1).links("Car").map(\.path) == ["/cardealer/Car(7)"])
            #expect(try await service.set("PersonCar").key(1).navigate("Car").get()["carID"] == .int32(7))
        }
    }

    @Test("A batch reads, and applies each change set all or nothing")
    func batch() async throws {
        try await withFreshServer { server in
            let service = try await server.signedInService("cardealer")
            let people = try await service.set("Person").count()
            var batch = service.batch()
            batch.get(service.set("Person").key(1))
            try batch.changeSet { changes in
                let ann = try changes.create(in: service.set("Person"), NewPerson(firstName: "Ann", lastName: "Lee"))
                try changes.create(in: ann.navigate("PersonCar"), ["carID": 5])
                try changes.update(service.set("Person").key(2), PersonChanges(ssn: "batched", lastName: nil), ifMatch: .none)
            }
            try batch.changeSet { changes in
                try changes.update(service.set("Person").key(3), PersonChanges(ssn: "never", lastName: nil), ifMatch: .none)
                changes.delete(service.set("Person").key(999_999), ifMatch: .none)
            }
            let results = try await batch.send()
            #expect(results.count == 3)
            #expect(try results[0].responses[0].entity()["firstName"] == .string("Bob"))
            #expect(results[1].isChangeSet && results[1].succeeded)
            #expect(results[1].responses.map(\.status) == [201, 201, 204])
            let ann = try results[1].responses[0].entity()
            #expect(try results[1].responses[1].entity()["personID"] == ann["personID"])
            #expect(!results[2].succeeded)
            #expect(results[2].error?.kind == .notFound)
            // The failed change set changed nothing; the good one landed.
            #expect(try await service.set("Person").key(3).get()["ssn"] != .string("never"))
            #expect(try await service.set("Person").key(2).get()["ssn"] == .string("batched"))
            #expect(try await service.set("Person").count() == people + 1)
        }
    }
}
