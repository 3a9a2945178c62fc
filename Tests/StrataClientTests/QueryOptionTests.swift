import Foundation
import StrataClient
import Testing

/// The builder's options as the live server answers them: what the seed apps ask for, and every
/// option at least once.
@Suite("Query options against a live server")
struct QueryOptionTests {
    struct Car: Decodable, Sendable, Equatable { var carID: Int; var make: String; var model: String }
    struct PersonCar: Decodable, Sendable { var personCarID: Int; var Car: Car?; var Person: TypedPerson? }
    struct PersonWithCars: Decodable, Sendable { var personID: Int; var firstName: String; var PersonCar: [PersonCar]? }

    @Test("Person(1)?$expand=PersonCar,PersonCar/Car as the seed's second screen asks, in V1 and V2")
    func seedExpand() async throws {
        let server = try await LiveServer.shared()
        for version in [ODataVersion.v1, .v2] {
            let service = server.service("cardealer", maxVersion: version)
            let bob = try await service.set("Person").key(1).expand("PersonCar", "PersonCar/Car").get()
            let links = bob.related("PersonCar")
            #expect(links.map { $0.relatedEntity("Car")?["model"] } == [.string("Explorer"), .string("Mustang")])
            #expect(links[0].navigation("Person") == .deferred(URL(string: "http://localhost:\(server.port)/cardealer/PersonCar(1)/Person")))

            let typed = try await service.set("Person").key(1).expand("PersonCar/Car").get(as: PersonWithCars.self)
            #expect(typed.PersonCar?.compactMap(\.Car?.model) == ["Explorer", "Mustang"])
            #expect(typed.PersonCar?.allSatisfy { $0.Person == nil } == true, "deferred navigation decodes as nil")
        }
    }

    @Test("Typed field filters select the rows the server agrees on")
    func typedFilters() async throws {
        // ssn is for editors (the demo's model file).
        let service = try await LiveServer.shared().signedInService("cardealer")
        let samsons = try await service.set("Person").filter(TypedPerson.lastName == "Samson").all(as: TypedPerson.self)
        #expect(samsons.map(\.personID) == [1])
        let noSSN = try await service.set("Person").filter(TypedPerson.ssn == nil).all(as: TypedPerson.self)
        #expect(!noSSN.isEmpty)
        #expect(noSSN.allSatisfy { $0.ssn == nil })
        #expect(noSSN.contains { $0.personID == 5 })
        let cutoff = Date(timeIntervalSince1970: 1_262_304_000) // 2010-01-01
        let early = try await service.set("Person")
            .filter(TypedPerson.createDate < cutoff && TypedPerson.lastName.startsWith("J"))
            .all(as: TypedPerson.self)
        #expect(!early.isEmpty)
        #expect(early.allSatisfy { $0.createDate < cutoff && $0.lastName.hasPrefix("J") })
        let all = try await service.set("Person").all(as: TypedPerson.self)
        #expect(early.count == all.filter { $0.createDate < cutoff && $0.lastName.hasPrefix("J") }.count)
    }

    @Test("Text filters, $orderby in both directions, $select")
    func orderAndSelect() async throws {
        let service = try await LiveServer.shared().service("cardealer")
        let fords = try await service.set("Car").filter(parsing: "make eq 'Ford' and carID le 40")
            .orderBy("model", .descending).orderBy("carID").all(as: Car.self)
        #expect(!fords.isEmpty)
        #expect(fords.allSatisfy { $0.make == "Ford" && $0.carID <= 40 })
        let expected = fords.sorted { ($0.model, -$0.carID) > ($1.model, -$1.carID) }
        #expect(fords == expected)

        let names = try await service.set("Person").select("firstName", "lastName").top(3).all()
        #expect(names.count == 3)
        #expect(names.allSatisfy { Set($0.propertyNames) == ["firstName", "lastName"] })
    }

    @Test("Paging with $orderby and $filter still sees every row once")
    func pagingWithOptions() async throws {
        let paged = try await LiveServer.shared(pageSize: 4).service("cardealer")
        let whole = try await LiveServer.shared().service("cardealer")
        let query = { (service: DataService) in
            service.set("Car").filter(QueryOptionTests.make == "Ford").orderBy(QueryOptionTests.model.descending)
        }
        let expected = try await query(whole).all(as: Car.self)
        #expect(expected.count > 8)
        let seen = try await query(paged).all(as: Car.self)
        #expect(seen == expected)
        #expect(try await query(paged).count() == expected.count)
        let first = try await query(paged).inlineCount().page()
        #expect(first.count == expected.count)
        #expect(first.entities.count == 4)
        #expect(first.nextLink != nil)
    }

    static let make = Field<String>("make")
    static let model = Field<String>("model")
}
