import Foundation
@testable import StrataClient
import Testing

@Suite("ODataEncoder")
struct EncoderTests {
    struct Everything: Codable, Equatable {
        var int: Int
        var int64: Int64
        var uint64: UInt64
        var decimal: Decimal
        var double: Double
        var infinity: Double
        var float: Float
        var bool: Bool
        var string: String
        var date: Date
        var exact: ODataDateTime
        var offset: ODataDateTimeOffset
        var time: ODataTime
        var guid: UUID
        var data: Data
        var url: URL
        var missing: String?
    }

    @Test("Every type is written in the form the server reads exactly, and decodes back")
    func everyType() throws {
        let value = Everything(
            int: 42, int64: .max, uint64: .max, decimal: Decimal(string: "12.50")!, double: 0.1, infinity: -.infinity,
            float: 1.25, bool: true, string: "O'Brien \"q\" é", date: Date(timeIntervalSince1970: 1_257_008_908.44),
            exact: ODataDateTime(microsecondsSince1970: 1_257_008_908_440_123),
            offset: ODataDateTimeOffset(utc: ODataDateTime(millisecondsSince1970: 0), offsetMinutes: 120),
            time: ODataTime(hour: 13, minute: 20)!, guid: UUID(uuidString: "12345678-AAAA-BBBB-CCCC-DDDDEEEEFFFF")!,
            data: Data([1, 2, 255]), url: URL(string: "http://h/x")!, missing: nil)
        let json = try ODataEncoder().encode(value)
        #expect(json["int"] == .number("42"))
        #expect(json["int64"] == .string("9223372036854775807"))
        #expect(json["uint64"] == .string("18446744073709551615"))
        #expect(json["decimal"] == .string("12.5"))
        #expect(json["double"] == .number("0.1"))
        #expect(json["infinity"] == .string("-INF"))
        #expect(json["bool"] == .bool(true))
        #expect(json["date"] == .string("/Date(1257008908440)/"))
        #expect(json["exact"] == .string("2009-10-31T17:08:28.440123"))
        #expect(json["offset"] == .string("1970-01-01T02:00:00+02:00"))
        #expect(json["time"] == .string("PT13H20M"))
        #expect(json["guid"] == .string("12345678-aaaa-bbbb-cccc-ddddeeeeffff"))
        #expect(json["data"] == .string("AQL/"))
        #expect(json["missing"] == nil, "nil optionals are left out, as a MERGE wants")
        let decoded = try ODataDecoder().decode(Everything.self, from: json)
        #expect(decoded == value)
        // The server's own reader accepts each value as its EDM type.
        #expect(try ODataJSON.decode(json["int64"]!, as: .int64) == .int64(.max))
        #expect(try ODataJSON.decode(json["date"]!, as: .dateTime) == .dateTime(ODataDateTime(millisecondsSince1970: 1_257_008_908_440)))
        #expect(try ODataJSON.decode(json["decimal"]!, as: .decimal) == .decimal(Decimal(string: "12.5")!))
    }

    @Test("Nested values and arrays make a deep insert body; explicit nulls are kept")
    func deepInsert() throws {
        struct Car: Encodable { var make: String; var model: String }
        struct Link: Encodable { var Car: Car }
        struct NewPerson: Encodable {
            var firstName: String
            var ssn: String?
            var PersonCar: [Link]
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(firstName, forKey: .firstName)
                try container.encode(ssn, forKey: .ssn) // null on purpose
                try container.encode(PersonCar, forKey: .PersonCar)
            }
            enum CodingKeys: CodingKey { case firstName, ssn, PersonCar }
        }
        let body = try ODataEncoder().encodeBody(NewPerson(firstName: "Ann", ssn: nil, PersonCar: [Link(Car: Car(make: "Volvo", model: "V70"))]))
        #expect(String(decoding: body, as: UTF8.self) == #"{"firstName":"Ann","ssn":null,"PersonCar":[{"Car":{"make":"Volvo","model":"V70"}}]}"#)
    }
}
