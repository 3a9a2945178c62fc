import Foundation
@testable import StrataClient
import StrataCore
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

@Suite("Multipart")
struct MultipartTests {
    /// A `$batch` answer exactly as Strata's server writes it: a query, a change set that worked,
    /// and one that failed (answered by a single part).
    static let serverAnswer = [
        "--batchresponse_1",
        "Content-Type: application/http",
        "Content-Transfer-Encoding: binary",
        "",
        "HTTP/1.1 200 OK",
        "Content-Type: application/json;charset=utf-8",
        "Content-Length: 49",
        "",
        #"{"d":{"__metadata":{"uri":"u/Person(1)"},"a":1}}"#,
        "--batchresponse_1",
        "Content-Type: multipart/mixed; boundary=changesetresponse_2",
        "",
        "--changesetresponse_2",
        "Content-Type: application/http",
        "Content-Transfer-Encoding: binary",
        "Content-ID: 1",
        "",
        "HTTP/1.1 201 Created",
        "Content-Type: application/json",
        "",
        #"{"d":{"__metadata":{"uri":"u/Person(7)","etag":"\"e7\""},"personID":7}}"#,
        "--changesetresponse_2",
        "Content-Type: application/http",
        "Content-Transfer-Encoding: binary",
        "Content-ID: 2",
        "",
        "HTTP/1.1 204 No Content",
        "ETag: \"e8\"",
        "",
        "",
        "--changesetresponse_2--",
        "--batchresponse_1",
        "Content-Type: application/http",
        "Content-Transfer-Encoding: binary",
        "",
        "HTTP/1.1 412 Precondition Failed",
        "Content-Type: application/json",
        "",
        String(decoding: ODataError(status: 412, code: "PreconditionFailed", message: "stale").jsonBody, as: UTF8.self),
        "--batchresponse_1--",
        "",
    ].joined(separator: "\r\n")

    @Test("Reads Strata's batch answer: queries, change sets, a failed change set")
    func readServerAnswer() throws {
        let parts = try #require(Multipart.parse(Array(Self.serverAnswer.utf8), boundary: "batchresponse_1"))
        #expect(parts.count == 3)
        let query = try #require(Multipart.parseHTTPResponse(parts[0].content))
        #expect(query.status == 200)
        #expect(String(decoding: query.body, as: UTF8.self).hasPrefix(#"{"d":{"#))
        #expect(Multipart.boundary(inContentType: parts[1].headers["Content-Type"]) == "changesetresponse_2")
        let changes = try #require(Multipart.parse(parts[1].content, boundary: "changesetresponse_2"))
        #expect(changes.map { $0.headers["Content-ID"] } == ["1", "2"])
        #expect(changes.compactMap { Multipart.parseHTTPResponse($0.content)?.status } == [201, 204])
        #expect(Multipart.parseHTTPResponse(changes[1].content)?.headers["ETag"] == "\"e8\"")
        #expect(Multipart.parseHTTPResponse(parts[2].content)?.status == 412)
    }

    @Test("Writing and reading are inverse, with bodies that contain line breaks and dashes")
    func roundTrip() throws {
        let bodies = ["a\r\n--not-a-boundary\r\nb", "", "{\"x\":1}\n"]
        let parts = bodies.map { Multipart.Part(headers: ["X-Test": "1"], content: Array($0.utf8)) }
        let written = Multipart.write(parts, boundary: "b_1")
        let read = try #require(Multipart.parse(written, boundary: "b_1"))
        #expect(read.map { String(decoding: $0.content, as: UTF8.self) } == bodies)
        #expect(read.allSatisfy { $0.headers["x-test"] == "1" })
        #expect(Multipart.boundary(inContentType: #"multipart/mixed; boundary="quoted_2""#) == "quoted_2")
        #expect(Multipart.boundary(inContentType: "application/json") == nil)
    }
}
