import Foundation
import HTTPTypes
import HummingbirdTesting
@testable import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// Smaller protocol details that were too lenient or too strict: ranges past the end, batch parts
/// addressed to other hosts, repeated Content-IDs, repeated temporary keys, repeated JSON names.
@Suite("Hardening: protocol details")
struct HardeningProtocolTests {
    static let json: HTTPFields = [.contentType: "application/json"]

    @Test("A Range whose last position lies past the end (even past 2^63) is clamped: 206 with the bytes there are")
    func rangeClamp() async throws {
        try await withServer(.sqlite, demo: false) { client in
            try await client.createContainer("files")
            let content = BlobTestData.binary(1_000)
            #expect(try await client.putBlob("/blobs/files/a.bin", content).status == .created)
            for range in ["bytes=0-9223372036854775807", "bytes=0-99999999999999999999999", "bytes=990-18446744073709551616"] {
                let response = try await client.execute(uri: "/blobs/files/a.bin", method: .get, headers: [.range: range], body: nil)
                #expect(response.status == .partialContent, "\(range): \(response.status)")
                let start = range.hasPrefix("bytes=990") ? 990 : 0
                #expect(response.bytes == Array(content[start...]), "\(range)")
                #expect(response.headers[.contentRange] == "bytes \(start)-999/1000")
            }
            let past = try await client.execute(uri: "/blobs/files/a.bin", method: .get, headers: [.range: "bytes=99999999999999999999-"], body: nil)
            #expect(past.status == .rangeNotSatisfiable)
            #expect(try await client.execute(uri: "/blobs/files/a.bin", method: .get, headers: [.range: "bytes=-99999999999999999999"], body: nil).bytes == content)
        }
    }

    @Test("$batch: a part addressed to another host is refused, this host under another scheme is not; Content-IDs are unique", arguments: Backend.allCases)
    func batchAddresses(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let before = try await client.get("/cardealer/Person/$count").text
            let person = #"{"firstName":"Batch","lastName":"Part","createDate":"\/Date(1700000000000)\/"}"#
            let elsewhere = BatchBody(items: [.changeSet([.init(method: "POST", url: "http://evil.example/cardealer/Person", body: person)])])
            let refused = try await client.send(.post, "/cardealer/$batch", headers: [.contentType: elsewhere.contentType], body: elsewhere.text)
            let answer = try BatchAnswer(refused)
            #expect(answer.parts.first?.status == 400, "\(refused.text)")
            #expect(answer.parts.first?.body.contains("another server") == true, "\(refused.text)")
            #expect(try await client.get("/cardealer/Person/$count").text == before)

            let sameHost = BatchBody(items: [.changeSet([.init(method: "POST", url: "https://localhost/cardealer/Person", body: person)])])
            let accepted = try BatchAnswer(try await client.send(.post, "/cardealer/$batch", headers: [.contentType: sameHost.contentType], body: sameHost.text))
            #expect(accepted.parts.first?.status == 201)

            let twice = BatchBody(items: [.changeSet([
                .init(method: "POST", url: "Person", body: person, contentID: "1"),
                .init(method: "POST", url: "Person", body: person, contentID: "1"),
            ])])
            let duplicate = try await client.send(.post, "/cardealer/$batch", headers: [.contentType: twice.contentType], body: twice.text)
            #expect(duplicate.status == .badRequest, "\(duplicate.text)")
            #expect(duplicate.odataError?.message.contains("Content-ID '1'") == true, "\(duplicate.text)")
            #expect(try await client.get("/cardealer/Person/$count").text == String(Int(before)! + 1))
        }
    }

    @Test("$changes: one temporary key given to two inserts is refused and nothing is applied", arguments: Backend.allCases)
    func repeatedTemporaryKey(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let before = try await client.get("/cardealer/Person/$count").text
            let body = #"""
            {"changes":[
              {"id":"a","table":"Person","kind":"insert","key":{"personID":-1},"values":{"firstName":"A","lastName":"One"}},
              {"id":"b","table":"Person","kind":"insert","key":{"personID":-1},"values":{"firstName":"B","lastName":"Two"}},
              {"id":"c","table":"PersonCar","kind":"insert","key":{"personCarID":-5},"values":{"personID":-1,"carID":1}}
            ]}
            """#
            let response = try await client.send(.post, "/cardealer/$changes", headers: Self.json, body: body)
            #expect(response.status == .badRequest, "\(response.text)")
            #expect(response.odataError?.message.contains("Changes 1 and 2 both insert into Person with the temporary key -1") == true, "\(response.text)")
            #expect(try await client.get("/cardealer/Person/$count").text == before)
        }
    }

    @Test("A JSON body that names a property twice is refused whole, on every endpoint that reads JSON", arguments: Backend.allCases)
    func duplicateNames(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let before = try await client.get("/cardealer/Person/$count").text
            let bodies: [(String, String)] = [
                ("/cardealer/Person", #"{"firstName":"A","lastName":"B","lastName":"C"}"#),
                ("/cardealer/$sql", #"{"sql":"SELECT 1 AS a","sql":"SELECT 2 AS a"}"#),
                ("/cardealer/$changes", #"{"changes":[{"id":"1","table":"Person","kind":"insert","key":{"personID":-1},"values":{"firstName":"A","firstName":"B"}}]}"#),
                ("/auth/token", #"{"username":"tester","username":"root","password":"x"}"#),
            ]
            for (path, body) in bodies {
                let response = try await client.send(.post, path, headers: Self.json, body: body)
                #expect(response.status == .badRequest, "\(path): \(response.text)")
                #expect(response.text.contains("appears twice"), "\(path): \(response.text)")
            }
            let merge = try await client.send(.patch, "/cardealer/Person(1)", headers: Self.json, body: #"{"firstName":"X","firstName":"Y"}"#)
            #expect(merge.status == .badRequest && merge.text.contains("appears twice"), "\(merge.text)")
            #expect(try await client.get("/cardealer/Person(1)").json["d"]["firstName"] != .string("Y"))
            #expect(try await client.get("/cardealer/Person/$count").text == before)
        }
    }
}
