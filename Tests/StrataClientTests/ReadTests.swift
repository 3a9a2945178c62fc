import Foundation
import StrataClient
import Testing

/// Reads against a live server: the seed apps' requests, single entities, navigation, composite
/// keys, counts, paging and both JSON shapes.
@Suite("Reads against a live server")
struct ReadTests {
    @Test("List people, as the CarDealer app's first screen does")
    func listPeople() async throws {
        let service = try await LiveServer.shared().service("cardealer")
        let people = try await service.set("Person").top(5).all()
        #expect(people.count == 5)
        #expect(people[0]["firstName"] == .string("Bob"))
        #expect(people[0]["lastName"] == .string("Samson"))
        #expect(people[0].type == "edmexampleModel.Person")
        #expect(people[0].uri?.path == "/cardealer/Person(1)")
        #expect(people[0].navigation("PersonCar") == .deferred(people[0].uri?.appendingPathComponent("PersonCar")))
        // The demo's model file keeps ssn for editors: the anonymous app does not get it.
        #expect(people[0]["ssn"] == nil)
        let staff = try await LiveServer.shared().signedInService("cardealer")
        let typed = try await staff.set("Person").top(5).all(as: TypedPerson.self)
        #expect(typed.map(\.lastName) == people.compactMap { $0["lastName"]?.stringValue })
        #expect(typed[0].createDate == Date(timeIntervalSince1970: 1_257_008_908.440))
        #expect(typed[0].ssn == "543872934")
    }

    @Test("One entity by key, decoded and dynamic")
    func singleEntity() async throws {
        let service = try await LiveServer.shared().signedInService("cardealer")
        let bob = try await service.set("Person").key(1).get(as: TypedPerson.self)
        #expect(bob == TypedPerson(personID: 1, firstName: "Bob", lastName: "Samson", ssn: "543872934",
                                   createDate: Date(timeIntervalSince1970: 1_257_008_908.440)))
        let scott = try await service.set("Person").key(5).get()
        #expect(scott["ssn"] == .null)
        #expect(try scott.value("ssn", as: String?.self) == nil)
    }

    @Test("Navigation to a collection and to a single entity")
    func navigation() async throws {
        let service = try await LiveServer.shared().service("cardealer")
        let links = try await service.set("Person").key(1).navigate("PersonCar").all()
        #expect(links.compactMap { $0["personCarID"] } == [.int32(1), .int32(2)])
        let car = try await service.set("PersonCar").key(2).navigate("Car").get()
        #expect(car["model"] == .string("Mustang"))
        #expect(car["manufactureDate"] == .dateTime(ODataDateTime(millisecondsSince1970: 1_075_680_000_000)))
    }

    @Test("The service document lists the entity sets; $metadata is the EDMX")
    func serviceDocument() async throws {
        let service = try await LiveServer.shared().service("cardealer")
        #expect(Set(try await service.entitySets()) == ["Person", "Car", "PersonCar", "Maintenance", "PersonCarMaintenance"])
        let metadata = try await service.metadataDocument()
        #expect(metadata.contains("<EntityType Name=\"Person\""))
    }

    @Test("The model from $metadata types every property exactly")
    func model() async throws {
        let service = try await LiveServer.shared().signedInService("cardealer")
        let model = try await service.model()
        #expect(model.namespace == "edmexampleModel")
        #expect(model.serviceName == "cardealer")
        let person = try #require(model.entityType(named: "Person"))
        #expect(person.keyNames == ["personID"])
        #expect(person.property(named: "createDate")?.type == .dateTime)
        #expect(person.property(named: "ssn")?.isNullable == true)
        let links = try #require(person.navigationProperty(named: "PersonCar"))
        #expect(links.targetSet == "PersonCar")
        #expect(links.multiplicity == .many)
        #expect(links.joinColumns == [.init(local: "personID", remote: "personID")])
        #expect(model.entityType(named: "PersonCar")?.navigationProperty(named: "Car")?.multiplicity == .one)

        let oil = try await service.set("Maintenance").key(1).get()
        #expect(try oil.value("price", in: model) == .decimal(Decimal(string: "29.99")!))
        #expect(oil["price"] == .string("29.99"), "without the model the JSON string stays a string")
        #expect(try oil.value("maintenanceID", in: model) == .int32(1))
        #expect(throws: StrataError.self) { try oil.value("nothing", in: model) }
    }

    @Test("Composite keys address SpeakEasy's table-storage entities")
    func compositeKey() async throws {
        let service = try await LiveServer.shared().service("speakeasy")
        let event = try await service.set("Events")
            .key(["PartitionKey": "Events", "RowKey": "74d5b7e2-c6db-4a8d-b0a4-364754bb90b4"]).get()
        #expect(event["EventName"] == .string("Windows Phone Meetup"))
        #expect(event["EventLocation"] == .string("Washington, DC"))
    }

    @Test("count(), first() and inline counts agree")
    func counting() async throws {
        let service = try await LiveServer.shared().service("cardealer")
        let people = service.set("Person")
        let total = try await people.count()
        #expect(total > 100)
        #expect(try await people.top(7).count() == 7)
        #expect(try await people.skip(total - 3).count() == 3)
        #expect(try await people.filter(TypedPerson.lastName == "Samson").count() == 1)
        let page = try await people.top(3).inlineCount().page()
        #expect(page.count == total)
        #expect(page.entities.count == 3)
        #expect(try await people.first()?["personID"] == .int32(1))
        #expect(try await people.skip(total).first() == nil)
        #expect(try await people.skip(1).first(as: TypedPerson.self)?.personID == 2)
    }

    @Test("Every EDM type of the demo data decodes: Int32, String, DateTime, nullable, Decimal, Boolean")
    func demoTypes() async throws {
        struct Maintenance: Decodable { var maintenanceID: Int32; var description: String; var price: Decimal?; var createStamp: ODataDateTime }
        struct Equipment: Decodable { var equipmentID: Int; var playerID: Int?; var brand: String; var price: Decimal?; var inStock: Bool }
        let server = try await LiveServer.shared()
        let maintenance = try await server.service("cardealer").set("Maintenance").key(1).get(as: Maintenance.self)
        #expect(maintenance.description == "Oil change")
        #expect(maintenance.price == Decimal(string: "29.99"))
        #expect(maintenance.createStamp == ODataDateTime.parse("2009-10-31T16:41:28.889"))
        let equipment = try await server.signedInService("hockey").set("Equipment").top(2).all(as: Equipment.self)
        #expect(equipment.map(\.equipmentID) == [1, 2])
        #expect(equipment[0].playerID == 591)
        #expect(equipment[1].playerID == nil)
        #expect(equipment[0].price == Decimal(string: "79.99"))
        #expect(equipment[0].inStock)
    }

    @Test("A V1 client gets a bare array and a V2 client a results wrapper; both read the same")
    func versions() async throws {
        let server = try await LiveServer.shared()
        let v1 = server.service("cardealer", maxVersion: .v1)
        let v2 = server.service("cardealer", maxVersion: .v2)
        let page1 = try await v1.set("Car").top(5).page()
        let page2 = try await v2.set("Car").top(5).page()
        #expect(page1.shape == .v1)
        #expect(page2.shape == .v2)
        #expect(page1.entities == page2.entities)
        #expect(try await v1.set("Car").top(5).all(as: DecoderTests.Car.self).map(\.model)
                == page2.entities.compactMap { $0["model"]?.stringValue })
        let sent = await v1.connection.lastExchange?.request.headers["MaxDataServiceVersion"]
        #expect(sent == "1.0")
    }

    @Test("Paging follows __next and sees every row exactly once")
    func paging() async throws {
        let paged = try await LiveServer.shared(pageSize: 7).service("cardealer")
        let whole = try await LiveServer.shared().service("cardealer")
        let expected = try await whole.set("Car").all().compactMap { $0["carID"] }
        #expect(expected.count > 30)
        var seen: [ODataValue] = []
        var pages = 0
        for try await page in paged.set("Car").pages() {
            pages += 1
            #expect(page.entities.count <= 7)
            seen += page.entities.compactMap { $0["carID"] }
        }
        #expect(pages == (expected.count + 6) / 7)
        #expect(seen == expected)
        #expect(Set(seen).count == seen.count)
        let decoded = try await paged.set("Car").all(as: DecoderTests.Car.self)
        #expect(decoded.map { ODataValue.int32(Int32($0.carID)) } == expected)
        // $top and $skip keep working across pages.
        let window = try await paged.set("Car").skip(3).top(17).all().compactMap { $0["carID"] }
        #expect(window == Array(expected[3..<20]))
    }

    @Test("Stopping early sends no further page requests")
    func earlyStop() async throws {
        let paged = try await LiveServer.shared(pageSize: 5).service("cardealer")
        let recorder = EventRecorder()
        await paged.connection.addObserver(recorder)
        var taken = 0
        for try await _ in paged.set("Person").entities() {
            taken += 1
            if taken == 6 { break }
        }
        #expect(recorder.log.filter { $0.hasPrefix("willSend") }.count == 2)
    }
}
