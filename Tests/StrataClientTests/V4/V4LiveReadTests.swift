import Foundation
import StrataClient
import Testing

/// Reads in V4 against a live server over real sockets, each beside the same call in V2: the
/// values must agree.
@Suite("V4: reads against a live server")
struct V4LiveReadTests {
    struct PersonCar: Decodable, Equatable { var personCarID: Int; var Car: QueryOptionTests.Car? }
    struct PersonWithCars: Decodable, Equatable { var personID: Int; var firstName: String; var PersonCar: [PersonCar]? }

    @Test("A V4 service sends V4's headers and reads V4 JSON; filter, orderby, top, skip and count return what V2 returns")
    func sameAsV2() async throws {
        let server = try await LiveServer.shared()
        let v2 = try await server.signedInService("cardealer")
        let v4 = try await server.signedInService("cardealer", maxVersion: .v4)
        func query(_ service: DataService) throws -> ODataQuery {
            try service.set("Person").filter(parsing: "personID le 40 and lastName ne 'Samson'").orderBy("lastName").orderBy("personID")
                .skip(3).top(10).inlineCount()
        }
        let recorder = await RequestRecorder.on(v4)
        let page4 = try await query(v4).page()
        let sent = try #require(recorder.last)
        #expect(sent.headers["OData-MaxVersion"] == "4.0")
        #expect(sent.headers["Accept"] == "application/json;odata.metadata=minimal")
        #expect(sent.headers["MaxDataServiceVersion"] == nil)
        #expect(sent.url.absoluteString.contains("$count=true"), "\(sent.url)")
        #expect(!sent.url.absoluteString.contains("$inlinecount"))
        #expect(page4.shape == .v4)

        let page2 = try await query(v2).page()
        #expect(page2.shape == .v2)
        #expect(page4.count == page2.count && page4.count == 39)
        #expect(page4.entities.count == 10)
        #expect(try page4.entities.map { try $0.decode(as: TypedPerson.self) } == page2.entities.map { try $0.decode(as: TypedPerson.self) })
        // Minimal metadata's entities get the ids and types V2 sends.
        #expect(page4.entities.map(\.uri) == page2.entities.map(\.uri))
        #expect(page4.entities.map(\.type) == page2.entities.map(\.type))
        #expect(page4.entities.map(\.etag) == page2.entities.map(\.etag))
        #expect(page4.entities.allSatisfy { $0.etag != nil })

        #expect(try await query(v4).count() == (try await query(v2).count()))
        #expect(try await v4.set("Person").count() == 300)
        #expect(try await query(v4).all(as: TypedPerson.self) == (try await query(v2).all(as: TypedPerson.self)))
        #expect(try await v4.set("Person").key(7).get(as: TypedPerson.self) == (try await v2.set("Person").key(7).get(as: TypedPerson.self)))
        #expect(try await v4.set("Person").first(as: TypedPerson.self)?.personID == 1)
    }

    @Test("Expanded navigation, navigation paths and the service document read alike in V4 and V2")
    func navigation() async throws {
        let server = try await LiveServer.shared()
        let v2 = server.service("cardealer")
        let v4 = server.service("cardealer", maxVersion: .v4)
        for id in [1, 3] {
            let query = { (service: DataService) in service.set("Person").key(id).expand("PersonCar", "PersonCar/Car") }
            let bob4 = try await query(v4).get(as: PersonWithCars.self)
            #expect(bob4 == (try await query(v2).get(as: PersonWithCars.self)))
            #expect(bob4.PersonCar?.isEmpty == false)
            let entity = try await query(v4).get()
            #expect(entity.related("PersonCar").first?.relatedEntity("Car")?.uri?.path.hasPrefix("/cardealer/Car(") == true)
        }
        let cars4 = try await v4.set("Person").key(1).navigate("PersonCar").all()
        let cars2 = try await v2.set("Person").key(1).navigate("PersonCar").all()
        #expect(cars4.map(\.uri) == cars2.map(\.uri))
        #expect(cars4.compactMap { $0["personCarID"] } == [.int32(1), .int32(2)])
        let car = try await v4.set("PersonCar").key(2).navigate("Car").get()
        #expect(car["model"] == .string("Mustang"))
        #expect(car.uri == (try await v2.set("PersonCar").key(2).navigate("Car").get().uri))
        #expect(Set(try await v4.entitySets()) == Set(try await v2.entitySets()))
        if case .collection(let page) = try await v4.set("Car").top(2).fetch() { #expect(page.entities.count == 2) } else { Issue.record("a collection read as an entity") }
        if case .entity(let one) = try await v4.set("Car").key(2).fetch() { #expect(one["carID"] == .int32(2)) } else { Issue.record("an entity read as a collection") }
    }

    @Test("Server-driven paging in V4: entities() follows @odata.nextLink and sees every row once, as V2 does")
    func paging() async throws {
        let server = try await LiveServer.shared(pageSize: 7)
        let v4 = server.service("cardealer", maxVersion: .v4)
        var pages = 0
        for try await page in try v4.set("Person").filter(parsing: "personID le 30").orderBy("personID").pages() {
            pages += 1
            #expect(page.shape == .v4)
            #expect(page.entities.count <= 7)
        }
        #expect(pages == 5)
        let ids = try await v4.set("Person").orderBy("personID").all().compactMap { $0.json["personID"]?.intValue }
        #expect(ids == Array(1...300))
    }

    @Test("The model from CSDL 4.0 is V2's model, with Edm.DateTime named Edm.DateTimeOffset")
    func model() async throws {
        let server = try await LiveServer.shared()
        for name in ["cardealer", "hockey", "speakeasy"] {
            let model2 = try await server.signedInService(name).model()
            let model4 = try await server.signedInService(name, maxVersion: .v4).model()
            #expect(model4.namespace == model2.namespace, "\(name)")
            #expect(model4.containerName == model2.containerName, "\(name)")
            #expect(model4.entitySets.map(\.name) == model2.entitySets.map(\.name), "\(name)")
            #expect(model4.entityTypes.map(\.name) == model2.entityTypes.map(\.name), "\(name)")
            for (type2, type4) in zip(model2.entityTypes, model4.entityTypes) {
                #expect(type4.keyNames == type2.keyNames, "\(name).\(type2.name)")
                #expect(type4.properties.map(\.name) == type2.properties.map(\.name), "\(name).\(type2.name)")
                #expect(type4.properties.map { $0.type == .dateTimeOffset ? .dateTime : $0.type } == type2.properties.map(\.type), "\(name).\(type2.name)")
                #expect(type4.properties.map(\.isNullable) == type2.properties.map(\.isNullable), "\(name).\(type2.name)")
                #expect(type4.properties.map(\.maxLength) == type2.properties.map(\.maxLength), "\(name).\(type2.name)")
                let navigations = { (type: EntityType) in type.navigationProperties.map { "\($0.name)→\($0.targetSet) \($0.multiplicity) \($0.joinColumns)" } }
                #expect(navigations(type4) == navigations(type2), "\(name).\(type2.name)")
            }
        }
        let service = try await server.signedInService("cardealer", maxVersion: .v4)
        let model = try await service.model()
        let oil = try await service.set("Maintenance").key(1).get()
        #expect(try oil.value("price", in: model) == .decimal(Decimal(string: "29.99")!))
        #expect(try oil.value("maintenanceID", in: model) == .int32(1))
    }

    @Test("Errors in V4: the service's message in a typed StrataError, as in V2")
    func errors() async throws {
        let server = try await LiveServer.shared()
        let v2 = server.service("cardealer")
        let v4 = server.service("cardealer", maxVersion: .v4)
        for (call, kind) in [("Person(99999)", StrataError.Kind.notFound), ("Person?$filter=nothing eq 1", .badRequest)] {
            var messages: [String] = []
            for service in [v2, v4] {
                do {
                    _ = try await service.send(StrataRequest(.get, service.rootPath + call))
                    Issue.record("\(call) succeeded")
                } catch {
                    #expect(error.kind == kind, "\(call)")
                    #expect(!error.message.isEmpty && !error.message.contains("{"), "\(call): \(error.message)")
                    messages.append(error.message)
                }
            }
            #expect(messages.count == 2 && messages[0] == messages[1], "\(call): \(messages)")
        }
        await #expect(throws: StrataError.self) { try await v4.set("Person").key(99999).get() }
    }
}
