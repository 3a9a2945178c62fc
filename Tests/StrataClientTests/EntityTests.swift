import Foundation
import StrataClient
import Testing

@Suite("Entity")
struct EntityTests {
    static let person: Entity = {
        let json = try! JSONValue.parse(#"""
        {"__metadata":{"uri":"http://host/cardealer/Person(1)","type":"edmexampleModel.Person","etag":"W/\"x\""},
        "personID":1,"firstName":"Bob","ssn":null,"createDate":"\/Date(1257008908440)\/","big":"9223372036854775807",
        "price":"35.00","ratio":0.25,"flag":false,
        "PersonCar":{"results":[{"__metadata":{"uri":"http://host/cardealer/PersonCar(1)"},"personCarID":1,
          "Car":{"__metadata":{"uri":"http://host/cardealer/Car(2)"},"carID":2,"model":"Explorer"},
          "Person":{"__deferred":{"uri":"http://host/cardealer/PersonCar(1)/Person"}}}]},
        "Other":[{"id":1}],"Empty":null}
        """#)
        return Entity(json: json.objectValue!)
    }()

    @Test("Metadata, names, and values with inferred types")
    func dynamicAccess() throws {
        let person = Self.person
        #expect(person.uri == URL(string: "http://host/cardealer/Person(1)"))
        #expect(person.type == "edmexampleModel.Person")
        #expect(person.etag == "W/\"x\"")
        #expect(person.propertyNames == ["personID", "firstName", "ssn", "createDate", "big", "price", "ratio", "flag", "Empty"])
        #expect(person.navigationNames == ["PersonCar", "Other"])
        #expect(person["personID"] == .int32(1))
        #expect(person["firstName"] == .string("Bob"))
        #expect(person["ssn"] == .null)
        #expect(person["createDate"] == .dateTime(ODataDateTime(millisecondsSince1970: 1_257_008_908_440)))
        #expect(person["ratio"] == .double(0.25))
        #expect(person["flag"] == .boolean(false))
        #expect(person["big"] == .string("9223372036854775807"), "JSON does not say a string is an Int64")
        #expect(person["missing"] == nil)
        #expect(person["PersonCar"] == nil)
    }

    @Test("Typed reads: by EDM type and by Swift type")
    func typedAccess() throws {
        let person = Self.person
        #expect(try person.value("big", as: .int64) == .int64(.max))
        #expect(try person.value("price", as: .decimal) == .decimal(Decimal(string: "35")!))
        #expect(try person.value("createDate", as: Date.self) == Date(timeIntervalSince1970: 1_257_008_908.44))
        #expect(try person.value("big", as: Int64.self) == .max)
        #expect(try person.value("ssn", as: String?.self) == nil)
        #expect(try person.value("nothing", as: String?.self) == nil)
        do {
            _ = try person.value("firstName", as: Int.self)
            Issue.record("a string decoded as Int")
        } catch {
            #expect(error.kind == .decoding)
            #expect(error.message.hasPrefix("firstName: "))
        }
        do {
            _ = try person.value("firstname", as: .string)
            Issue.record("a misspelt property was found")
        } catch {
            #expect(error.message.contains("has no property firstname"))
            #expect(error.message.contains("firstName"))
        }
    }

    @Test("Navigation: expanded collections (V1 and V2), expanded single, deferred, null")
    func navigation() throws {
        let person = Self.person
        let links = person.related("PersonCar")
        #expect(links.count == 1)
        #expect(links[0].relatedEntity("Car")?["model"] == .string("Explorer"))
        #expect(links[0].navigation("Person") == .deferred(URL(string: "http://host/cardealer/PersonCar(1)/Person")))
        #expect(links[0].related("Person").isEmpty)
        #expect(person.related("Other").count == 1)
        #expect(person.navigation("Empty") == .entity(nil))
        #expect(person.navigation("nothing") == nil)
    }
}

@Suite("ETag tracking")
struct ETagTrackerTests {
    @Test("Records entities and their expanded relatives, forgets, and keeps only the newest beyond capacity")
    func tracking() async throws {
        let tracker = ETagTracker(capacity: 3)
        await tracker.record(EntityTests.person)
        let person = try #require(URL(string: "http://host/cardealer/Person(1)"))
        #expect(await tracker.etag(for: person) == "W/\"x\"")
        for index in 0..<5 {
            await tracker.record("e\(index)", for: URL(string: "http://host/s/E(\(index))")!)
        }
        #expect(await tracker.etag(for: person) == nil)
        #expect(await tracker.etag(for: URL(string: "http://host/s/E(1)")!) == nil)
        #expect(await tracker.etag(for: URL(string: "http://host/s/E(4)")!) == "e4")
        await tracker.record(nil, for: URL(string: "http://host/s/E(4)")!)
        #expect(await tracker.etag(for: URL(string: "http://host/s/E(4)")!) == nil)
        #expect(await tracker.etag(for: URL(string: "http://host/s/E(3)")!) == "e3")
    }
}
