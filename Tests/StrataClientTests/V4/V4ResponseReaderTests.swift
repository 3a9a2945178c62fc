import Foundation
@testable import StrataClient
import Testing

/// V4 JSON answers read from canned responses: pages with and without control information, single
/// entities, numbers as strings, V4's date and time forms, and Codable decoding.
@Suite("V4: reading JSON")
struct V4ResponseReaderTests {
    static let url = URL(string: "http://example.com/trippin/People?$top=2")!

    static func response(_ body: String, status: Int = 200, headers: StrataHeaders = ["OData-Version": "4.0"], url: URL = url) -> StrataResponse {
        StrataResponse(status: status, headers: headers, body: Data(body.utf8), url: url)
    }

    @Test("A minimal-metadata page: value, @odata.count, a relative @odata.nextLink resolved against the context, ETags")
    func minimalPage() throws {
        let page = try ResponseReader.page(Self.response("""
        {"@odata.context":"http://example.com/trippin/$metadata#People","@odata.count":20,
         "value":[{"@odata.etag":"W/\\"1\\"","UserName":"russellwhyte","Age":42},
                  {"@odata.etag":"W/\\"2\\"","UserName":"scottketchum","Age":null}],
         "@odata.nextLink":"People?$top=2&$skip=2"}
        """))
        #expect(page.shape == .v4)
        #expect(page.count == 20)
        #expect(page.nextLink?.absoluteString == "http://example.com/trippin/People?$top=2&$skip=2")
        #expect(page.entities.count == 2)
        #expect(page.entities[0].etag == "W/\"1\"")
        #expect(page.entities[0]["UserName"] == .string("russellwhyte"))
        #expect(page.entities[0]["Age"] == .int32(42))
        #expect(page.entities[1]["Age"] == .null)
        #expect(page.entities[0].propertyNames == ["UserName", "Age"])
        #expect(page.entities[0].navigationNames.isEmpty)
    }

    @Test("Without an OData-Version header the shape tells V4 from V2; IEEE754Compatible counts and numbers as strings")
    func shapeAndStrings() throws {
        let page = try ResponseReader.page(Self.response("""
        {"@odata.count":"3","value":[{"id":"9007199254740993","price":"12.50"}]}
        """, headers: [:]))
        #expect(page.shape == .v4 && page.count == 3)
        let entity = page.entities[0]
        #expect(try entity.value("id", as: .int64) == .int64(9_007_199_254_740_993))
        #expect(try entity.value("price", as: Decimal.self) == Decimal(string: "12.50"))
        let numbers = try ResponseReader.page(Self.response(#"{"value":[{"id":9007199254740993,"price":12.50}]}"#)).entities[0]
        #expect(try numbers.value("id", as: Int64.self) == 9_007_199_254_740_993)
        #expect(try numbers.value("price", as: .decimal) == .decimal(Decimal(string: "12.5")!))
        // V2 is still V2.
        let v2 = try ResponseReader.page(Self.response(#"{"d":{"results":[{"a":1}],"__count":"1"}}"#, headers: [:]))
        #expect(v2.shape == .v2 && v2.count == 1)
    }

    @Test("Full metadata: @odata.id, @odata.type, navigation links as deferred navigation; none: no control information at all")
    func fullAndNone() throws {
        let full = try ResponseReader.entity(Self.response("""
        {"@odata.context":"http://example.com/trippin/$metadata#People/$entity","@odata.id":"http://example.com/trippin/People('russellwhyte')",
         "@odata.etag":"W/\\"08D1\\"","@odata.editLink":"People('russellwhyte')","@odata.type":"#Trippin.Person",
         "UserName":"russellwhyte","Trips@odata.associationLink":"http://example.com/trippin/People('russellwhyte')/Trips/$ref",
         "Trips@odata.navigationLink":"http://example.com/trippin/People('russellwhyte')/Trips"}
        """))
        #expect(full.uri?.absoluteString == "http://example.com/trippin/People('russellwhyte')")
        #expect(full.type == "Trippin.Person")
        #expect(full.etag == "W/\"08D1\"")
        #expect(full.propertyNames == ["UserName"])
        #expect(full.navigation("Trips") == .deferred(URL(string: "http://example.com/trippin/People('russellwhyte')/Trips")))

        let none = try ResponseReader.entity(Self.response(#"{"UserName":"russellwhyte","Trips":[{"TripId":1}]}"#,
                                                             headers: ["OData-Version": "4.0"]))
        #expect(none.metadata == nil)
        #expect(none.related("Trips").map { $0["TripId"] } == [.int32(1)])
    }

    @Test("A collection where one entity is expected, and the other way round, say which call to use")
    func wrongShape() throws {
        let collection = Self.response(#"{"@odata.context":"http://example.com/trippin/$metadata#People","value":[]}"#)
        #expect(throws: StrataError.self) { try ResponseReader.entity(collection) }
        #expect(try ResponseReader.isCollection(collection))
        let entity = Self.response(#"{"@odata.context":"http://example.com/trippin/$metadata#People/$entity","value":[1],"UserName":"x"}"#)
        #expect(try !ResponseReader.isCollection(entity))
        do {
            _ = try ResponseReader.page(entity)
            Issue.record("an entity was read as a page")
        } catch {
            #expect(error.message.contains("use get()"))
        }
    }

    struct Trip: Decodable, Equatable {
        var TripId: Int
        var ShareId: UUID
        var StartsAt: Date
        var StartDate: Date?
        var Departure: ODataTime?
        var Budget: Float
        var Big: Int64
        var Cost: Decimal
    }

    @Test("Codable: ISO 8601 dates and Edm.Date, TimeOfDay, Int64 as a number or string, annotations skipped, a V4 body's value array")
    func codable() throws {
        let body = """
        {"@odata.context":"http://example.com/trippin/$metadata#AllTrips","value":[
         {"@odata.etag":"W/\\"1\\"","TripId":1,"ShareId":"9d9b2fa0-efbf-490e-a5e3-bac8f7d47354","StartsAt":"2014-01-01T00:00:00Z",
          "StartDate":"2014-01-01","Departure":"13:20:05.250","Budget":3000.5,"Big":9007199254740993,"Cost":"12.50"},
         {"TripId":2,"ShareId":"f94e9116-8bdd-4dac-ab61-08438d0d9a71","StartsAt":"2014-02-01T08:00:00+02:00",
          "StartDate":null,"Departure":null,"Budget":0,"Big":"-5","Cost":1}]}
        """
        let trips = try ODataDecoder().decode([Trip].self, from: Data(body.utf8))
        #expect(trips.count == 2)
        #expect(trips[0].StartsAt == Date(timeIntervalSince1970: 1_388_534_400))
        #expect(trips[0].StartDate == Date(timeIntervalSince1970: 1_388_534_400))
        #expect(trips[0].Departure == ODataTime(hour: 13, minute: 20, second: 5, microsecond: 250_000))
        #expect(trips[0].Big == 9_007_199_254_740_993 && trips[1].Big == -5)
        #expect(trips[0].Cost == Decimal(string: "12.50") && trips[1].Cost == 1)
        #expect(trips[1].StartsAt == Date(timeIntervalSince1970: 1_391_234_400))

        let page = try ResponseReader.page(Self.response(body))
        #expect(try page.entities[0].decode(as: Trip.self) == trips[0])
        #expect(try page.entities[0].value("StartDate", as: .dateTime) == .dateTime(ODataDateTime(millisecondsSince1970: 1_388_534_400_000)))
        #expect(try page.entities[0].value("Departure", as: .time) == .time(ODataTime(hour: 13, minute: 20, second: 5, microsecond: 250_000)!))
        #expect(try page.entities[1].value("StartsAt", as: .dateTimeOffset)
                == .dateTimeOffset(ODataDateTimeOffset(utc: ODataDateTime(millisecondsSince1970: 1_391_234_400_000), offsetMinutes: 120)))
        // A container's keys are properties only.
        let keys = try page.entities[0].decode(as: Keys.self)
        #expect(keys.names.count == 8 && !keys.names.contains { $0.contains("@") })
    }

    struct Keys: Decodable {
        struct Name: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        var names: [String]
        init(from decoder: any Decoder) throws {
            names = try decoder.container(keyedBy: Name.self).allKeys.map(\.stringValue)
        }
    }

    @Test("A V4 service document lists entity sets, not singletons or functions")
    func serviceDocument() throws {
        let names = try ResponseReader.serviceDocumentV4(Self.response("""
        {"@odata.context":"http://example.com/trippin/$metadata","value":[{"name":"People","kind":"EntitySet","url":"People"},
         {"name":"Me","kind":"Singleton","url":"Me"},{"name":"AllTrips","url":"AllTrips"}]}
        """))
        #expect(names == ["People", "AllTrips"])
        #expect(try ResponseReader.serviceDocumentV4(Self.response(#"{"d":{"EntitySets":["A"]}}"#, headers: [:])) == nil)
    }

    @Test("A V4 error body becomes a StrataError with the service's code and message")
    func error() {
        let response = Self.response(#"{"error":{"code":"BadRequest","message":"The query specified in the URI is not valid.","details":[],"innererror":{}}}"#,
                                     status: 400)
        let error = StrataError(response: response)
        #expect(error.kind == .badRequest && error.status == 400)
        #expect(error.code == "BadRequest")
        #expect(error.message == "The query specified in the URI is not valid.")
    }
}
