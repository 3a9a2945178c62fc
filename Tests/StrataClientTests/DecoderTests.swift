import Foundation
import StrataClient
import Testing

/// Every EDM type in every JSON form OData writes, decoded into Swift types.
@Suite("ODataDecoder")
struct DecoderTests {
    struct AllTypes: Decodable, Equatable {
        var binary: Data
        var boolean: Bool
        var byte: UInt8
        var sbyte: Int8
        var dateTime: Date
        var exactDateTime: ODataDateTime
        var dateTimeOffset: ODataDateTimeOffset
        var offsetAsDate: Date
        var decimal: Decimal
        var decimalNumber: Decimal
        var double: Double
        var notANumber: Double
        var infinity: Double
        var guid: UUID
        var int16: Int16
        var int32: Int32
        var int64: Int64
        var int64Number: Int64
        var single: Float
        var string: String
        var time: ODataTime
        var missingValue: String?
        var link: URL
        var Nav: [AllTypes]?
        var __metadata: EntityMetadata?
    }

    static let allTypesBody = #"""
    {"d":{"__metadata":{"uri":"http://host/svc/All(1)","type":"NS.All","etag":"W/\"3\""},
    "binary":"AQID/w==","boolean":true,"byte":255,"sbyte":-128,
    "dateTime":"\/Date(1257008908440)\/","exactDateTime":"2009-10-31T17:08:28.440123",
    "dateTimeOffset":"2009-11-01T02:00:00+02:00","offsetAsDate":"\/Date(1257008908440+0120)\/",
    "decimal":"12.50","decimalNumber":79.99,"double":1.5E10,"notANumber":"NaN","infinity":"-INF",
    "guid":"12345678-aaaa-bbbb-cccc-ddddeeeeffff","int16":-32768,"int32":2147483647,
    "int64":"9223372036854775807","int64Number":42,"single":1.25,"string":"O'Brien \u00e9 \"q\"",
    "time":"PT13H20M5.5S","missingValue":null,"link":"http://host/svc/All(1)",
    "Nav":{"__deferred":{"uri":"http://host/svc/All(1)/Nav"}}}}
    """#

    struct Optionals: Decodable {
        var int32: Int32?
        var int: Int?
        var uint8: UInt8?
        var string: String?
        var double: Double?
        var float: Float?
        var bool: Bool?
        var date: Date?
        var absent: Int64?
        var null: String?
        var nested: [Int32]?
    }

    @Test("Optional properties: present values decode, absent, null and deferred ones are nil, wrong types still throw")
    func optionals() throws {
        let body = #"{"d":{"int32":7,"int":"-9","uint8":255,"string":"x","double":2.5,"float":0.5,"bool":false,"#
            + #""date":"\/Date(0)\/","null":null,"nested":{"__deferred":{"uri":"http://host/svc/X(1)/nested"}}}}"#
        let decoded = try ODataDecoder().decode(Optionals.self, from: Data(body.utf8))
        #expect(decoded.int32 == 7 && decoded.int == -9 && decoded.uint8 == 255)
        #expect(decoded.string == "x" && decoded.double == 2.5 && decoded.float == 0.5 && decoded.bool == false)
        #expect(decoded.date == Date(timeIntervalSince1970: 0))
        #expect(decoded.absent == nil && decoded.null == nil && decoded.nested == nil)

        let wrong = #"{"d":{"uint8":-1}}"#
        #expect {
            try ODataDecoder().decode(Optionals.self, from: Data(wrong.utf8))
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.codingPath.map(\.stringValue) == ["uint8"]
        }
    }

    @Test("Every EDM type decodes from the form the server writes it in")
    func everyType() throws {
        let decoded = try ODataDecoder().decode(AllTypes.self, from: Data(Self.allTypesBody.utf8))
        #expect(decoded.binary == Data([1, 2, 3, 255]))
        #expect(decoded.boolean)
        #expect(decoded.byte == 255)
        #expect(decoded.sbyte == -128)
        #expect(decoded.dateTime == Date(timeIntervalSince1970: 1_257_008_908.440))
        #expect(decoded.exactDateTime.microsecondsSince1970 == 1_257_008_908_440_123)
        #expect(decoded.dateTimeOffset.offsetMinutes == 120)
        #expect(decoded.dateTimeOffset.utc == ODataDateTime(year: 2009, month: 11, day: 1))
        // The ticks of /Date(ms+offset)/ are UTC; the offset only says how the instant was expressed.
        #expect(decoded.offsetAsDate == Date(timeIntervalSince1970: 1_257_008_908.440))
        #expect(decoded.decimal == Decimal(string: "12.50"))
        #expect(decoded.decimalNumber == Decimal(string: "79.99"))
        #expect(decoded.double == 1.5e10)
        #expect(decoded.notANumber.isNaN)
        #expect(decoded.infinity == -.infinity)
        #expect(decoded.guid == UUID(uuidString: "12345678-AAAA-BBBB-CCCC-DDDDEEEEFFFF"))
        #expect(decoded.int16 == .min)
        #expect(decoded.int32 == .max)
        #expect(decoded.int64 == .max)
        #expect(decoded.int64Number == 42)
        #expect(decoded.single == 1.25)
        #expect(decoded.string == "O'Brien é \"q\"")
        #expect(decoded.time == ODataTime(hour: 13, minute: 20, second: 5, microsecond: 500_000))
        #expect(decoded.missingValue == nil)
        #expect(decoded.link == URL(string: "http://host/svc/All(1)"))
        #expect(decoded.Nav == nil, "a deferred navigation property decodes as nil")
        #expect(decoded.__metadata == EntityMetadata(uri: URL(string: "http://host/svc/All(1)"), type: "NS.All", etag: "W/\"3\""))
    }

    struct Car: Decodable, Equatable {
        var carID: Int
        var model: String
    }

    struct Link: Decodable, Equatable {
        var personCarID: Int
        var Car: Car?
    }

    struct Person: Decodable, Equatable {
        var personID: Int
        var PersonCar: [Link]
    }

    @Test("V1 arrays and V2 results wrappers decode alike, at the top and in expanded navigation")
    func collectionShapes() throws {
        let v1 = #"{"d":[{"personID":1,"PersonCar":[{"personCarID":1,"Car":{"carID":2,"model":"Explorer"}}]}]}"#
        let v2 = #"""
        {"d":{"results":[{"__metadata":{"uri":"u","type":"t"},"personID":1,
        "PersonCar":{"results":[{"personCarID":1,"Car":{"__metadata":{"uri":"c"},"carID":2,"model":"Explorer"}}]}}],
        "__count":"1","__next":"http://host/svc/Person?$skiptoken=1"}}
        """#
        let expected = [Person(personID: 1, PersonCar: [Link(personCarID: 1, Car: Car(carID: 2, model: "Explorer"))])]
        #expect(try ODataDecoder().decode([Person].self, from: Data(v1.utf8)) == expected)
        #expect(try ODataDecoder().decode([Person].self, from: Data(v2.utf8)) == expected)
    }

    @Test("A null to-one navigation and a deferred one both decode as nil")
    func nullNavigation() throws {
        let body = #"{"d":[{"personCarID":1,"Car":null},{"personCarID":2,"Car":{"__deferred":{"uri":"x"}}}]}"#
        let links = try ODataDecoder().decode([Link].self, from: Data(body.utf8))
        #expect(links == [Link(personCarID: 1, Car: nil), Link(personCarID: 2, Car: nil)])
    }

    @Test("Mismatches name the path and what was found")
    func mismatches() throws {
        struct Narrow: Decodable { var value: Int32 }
        struct Wrong: Decodable { var value: Int }
        struct Required: Decodable { var PersonCar: [Link] }
        struct Absent: Decodable { var other: String }
        func message<T: Decodable>(_ type: T.Type, _ json: String) -> String {
            Self.failure(decoding: type, json)
        }
        #expect(message(Narrow.self, #"{"d":{"value":"9223372036854775807"}}"#).contains("does not fit in Int32"))
        #expect(message(Wrong.self, #"{"d":{"value":"twelve"}}"#).hasPrefix("value: "))
        #expect(message(Wrong.self, #"{"d":{"value":1.5}}"#).contains("not an integer"))
        #expect(message(Required.self, #"{"d":{"PersonCar":{"__deferred":{"uri":"x"}}}}"#).contains("not expanded"))
        #expect(message(Absent.self, #"{"d":{"value":1}}"#).contains("no value for other"))
        #expect(message([Link].self, #"{"d":[{"personCarID":1,"Car":{"carID":"x","model":"m"}}]}"#).hasPrefix("[0].Car.carID: "))
        #expect(message(Wrong.self, "not json").contains("not JSON"))
    }

    static func failure<T: Decodable>(decoding type: T.Type, _ json: String) -> String {
        let result = Result { try ODataDecoder().decode(type, from: Data(json.utf8)) }
        if case .failure(let error) = result { return ODataDecoder.describe(error) }
        return "decoded"
    }

    @Test("OData date and time values are Codable in their wire forms")
    func coreValuesCodable() throws {
        struct Holder: Codable, Equatable {
            var whole: ODataDateTime
            var fine: ODataDateTime
            var offset: ODataDateTimeOffset
            var time: ODataTime
        }
        let holder = Holder(whole: ODataDateTime(millisecondsSince1970: 1_257_008_908_440),
                            fine: ODataDateTime(microsecondsSince1970: 1_257_008_908_440_123),
                            offset: ODataDateTimeOffset(utc: ODataDateTime(millisecondsSince1970: 0), offsetMinutes: -90),
                            time: ODataTime(hour: 9, minute: 5)!)
        let encoded = try JSONEncoder().encode(holder)
        let text = String(decoding: encoded, as: UTF8.self)
        #expect(text.contains(#"\/Date(1257008908440)\/"#))
        #expect(text.contains("2009-10-31T17:08:28.440123"))
        #expect(text.contains("1969-12-31T22:30:00-01:30"))
        #expect(text.contains("PT9H5M"))
        #expect(try JSONDecoder().decode(Holder.self, from: encoded) == holder)
        #expect(try ODataDecoder().decode(Holder.self, from: encoded) == holder)
    }
}
