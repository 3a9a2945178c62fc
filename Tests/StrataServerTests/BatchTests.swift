import Foundation
import HTTPTypes
import HummingbirdTesting
import StrataCore
import Testing

/// Builds `$batch` bodies the way OData V2 clients write them.
struct BatchBody {
    enum Item {
        case query(String)
        case changeSet([Change])
    }

    struct Change {
        var method: String
        var url: String
        var body: String?
        var contentID: String?
        var headers: [String] = []
    }

    var items: [Item]
    let boundary = "batch_" + UUID().uuidString

    var contentType: String { "multipart/mixed; boundary=\(boundary)" }

    var text: String {
        var out = ""
        for item in items {
            out += "--\(boundary)\r\n"
            switch item {
            case .query(let url):
                out += "Content-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nGET \(url) HTTP/1.1\r\nAccept: application/json\r\n\r\n\r\n"
            case .changeSet(let changes):
                let inner = "changeset_" + UUID().uuidString
                out += "Content-Type: multipart/mixed; boundary=\(inner)\r\n\r\n"
                for change in changes {
                    out += "--\(inner)\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n"
                    if let id = change.contentID { out += "Content-ID: \(id)\r\n" }
                    out += "\r\n\(change.method) \(change.url) HTTP/1.1\r\n"
                    for header in change.headers { out += header + "\r\n" }
                    if let body = change.body {
                        out += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)\r\n"
                    } else {
                        out += "\r\n"
                    }
                }
                out += "--\(inner)--\r\n"
            }
        }
        return out + "--\(boundary)--\r\n"
    }
}

/// A `$batch` response read back: the status line, headers and body of every operation part, in
/// order, and which of them came inside a change set response.
struct BatchAnswer {
    struct Part {
        var status: Int
        var headers: [String: String]
        var body: String
        var inChangeSet: Bool
        var json: JSONValue? { try? JSONValue.parse(body) }
    }

    var parts: [Part] = []

    init(_ response: TestResponse) throws {
        let contentType = try #require(response.headers[.contentType])
        let boundary = try #require(contentType.components(separatedBy: "boundary=").last)
        try read(response.text, boundary: boundary, inChangeSet: false)
    }

    private mutating func read(_ text: String, boundary: String, inChangeSet: Bool) throws {
        let pieces = text.components(separatedBy: "--\(boundary)")
        for piece in pieces.dropFirst() where !piece.hasPrefix("--") {
            let sections = piece.components(separatedBy: "\r\n\r\n")
            let mime = sections[0]
            if let range = mime.range(of: "boundary=") {
                let inner = String(mime[range.upperBound...].prefix { !$0.isNewline })
                try read(sections.dropFirst().joined(separator: "\r\n\r\n"), boundary: inner, inChangeSet: true)
                continue
            }
            let head = sections[1].components(separatedBy: "\r\n")
            let status = Int(head[0].split(separator: " ")[1]) ?? 0
            var headers: [String: String] = [:]
            for line in head.dropFirst() {
                let pair = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if pair.count == 2 { headers[pair[0].lowercased()] = pair[1] }
            }
            // Content-Length says where the body ends ("\r\n" is one Character, so count bytes).
            let rest = Array(sections.dropFirst(2).joined(separator: "\r\n\r\n").utf8)
            let length = headers["content-length"].flatMap { Int($0) } ?? rest.count
            let body = String(decoding: rest.prefix(length), as: UTF8.self)
            parts.append(Part(status: status, headers: headers, body: body, inChangeSet: inChangeSet))
        }
    }
}

extension TestClientProtocol {
    func batch(_ body: BatchBody, service: String = "cardealer") async throws -> TestResponse {
        try await send(.post, "/\(service)/$batch", headers: [.contentType: body.contentType], body: body.text)
    }
}

@Suite("$batch")
struct BatchTests {
    @Test("Queries and a change set with Content-ID references; one part per operation, in order", arguments: Backend.allCases)
    func mixed(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let people = try await client.count("/cardealer/Person")
            let body = BatchBody(items: [
                .query("Person(1)"),
                .changeSet([
                    .init(method: "POST", url: "Person", body: #"{"firstName":"Batch","lastName":"Person"}"#, contentID: "1"),
                    .init(method: "POST", url: "$1/PersonCar", body: #"{"carID":5}"#, contentID: "2"),
                    .init(method: "MERGE", url: "/cardealer/Person(1)", body: #"{"ssn":"000"}"#),
                    .init(method: "PUT", url: "$2/$links/Car", body: #"{"uri":"Car(2)"}"#),
                ]),
                .query("Person/$count"),
                .query("Person(999999)"),
            ])
            let response = try await client.batch(body)
            #expect(response.status == .accepted)
            let answer = try BatchAnswer(response)
            #expect(answer.parts.map(\.status) == [200, 201, 201, 204, 204, 200, 404])
            #expect(answer.parts.map(\.inChangeSet) == [false, true, true, true, true, false, false])
            #expect(answer.parts[0].json?["d"]["firstName"]?.stringValue == "Bob")
            let created = try #require(answer.parts[1].json?["d"])
            #expect(answer.parts[1].headers["content-type"] == "application/json;charset=utf-8")
            #expect(answer.parts[2].json?["d"]["personID"] == created["personID"])
            #expect(answer.parts[5].body == String(people + 1))
            #expect(try await client.get("/cardealer/Person(1)").json["d"]["ssn"]?.stringValue == "000")
            let location = try #require(answer.parts[1].headers["location"]).replacingOccurrences(of: "http://localhost", with: "")
            let cars = try await client.get(location + "/PersonCar").json["d"]["results"]?.arrayValue ?? []
            #expect(cars.map { $0["carID"] } == [.number("2")])
        }
    }

    @Test("A failure in the middle of a change set rolls it back whole; other change sets are kept", arguments: Backend.allCases)
    func rollback(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let state = ["/cardealer/Person/$count", "/cardealer/PersonCar/$count", "/cardealer/Car/$count", "/cardealer/Person(1)"]
            let before = try await client.snapshot(state)
            let body = BatchBody(items: [
                .changeSet([
                    .init(method: "POST", url: "Person", body: #"{"firstName":"Kept","lastName":"Person"}"#),
                ]),
                .changeSet([
                    .init(method: "POST", url: "Car", body: #"{"make":"Volvo","model":"740"}"#, contentID: "car"),
                    .init(method: "MERGE", url: "Person(1)", body: #"{"firstName":"Changed"}"#),
                    .init(method: "POST", url: "PersonCar", body: #"{"personID":999999,"carID":5}"#),
                    .init(method: "POST", url: "Car", body: #"{"make":"Never","model":"Made"}"#),
                ]),
                .changeSet([
                    .init(method: "MERGE", url: "Person(1)", body: #"{"firstName":"Bad","nope":1}"#),
                ]),
                .query("Car/$count"),
            ])
            let response = try await client.batch(body)
            #expect(response.status == .accepted)
            let answer = try BatchAnswer(response)
            #expect(answer.parts.map(\.status) == [201, 409, 400, 200])
            #expect(answer.parts.map(\.inChangeSet) == [true, false, false, false])
            let message = answer.parts[1].json?["error"]["message"]["value"]?.stringValue ?? ""
            #expect(message.contains("Operation 3"), "\(message)")
            #expect(message.contains("PersonCar"), "\(message)")
            let after = try await client.snapshot(state)
            #expect(after[1...] == before[1...])
            #expect(after[0] != before[0])
        }
    }

    @Test("A 1,000-operation change set runs in one transaction", arguments: Backend.allCases)
    func large(_ backend: Backend) async throws {
        try await withWriteServer(backend) { client in
            let changes = (0..<1000).map { index in
                BatchBody.Change(method: "POST", url: "Counters", body: #"{"name":"c\#(index)","value":\#(index)}"#, contentID: "\(index)")
            }
            let response = try await client.batch(BatchBody(items: [.changeSet(changes)]), service: "ledger")
            #expect(response.status == .accepted)
            let answer = try BatchAnswer(response)
            #expect(answer.parts.count == 1000)
            #expect(answer.parts.allSatisfy { $0.status == 201 && $0.inChangeSet })
            #expect(try await client.count("/ledger/Counters") == 1002)

            // The same 1,000 again plus one duplicate at the end: nothing is kept.
            var failing = (0..<1000).map { BatchBody.Change(method: "POST", url: "Counters", body: #"{"name":"d\#($0)"}"#) }
            failing.append(.init(method: "POST", url: "Counters", body: #"{"name":"hits"}"#))
            let refused = try BatchAnswer(try await client.batch(BatchBody(items: [.changeSet(failing)]), service: "ledger"))
            #expect(refused.parts.map(\.status) == [409])
            #expect(try await client.count("/ledger/Counters") == 1002)
        }
    }

    @Test("Lenient clients: LF line endings, absolute URLs, If-Match and X-HTTP-Method inside a change set", arguments: Backend.allCases)
    func lenient(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let tag = try #require(try await client.get("/cardealer/Person(1)").headers[.eTag])
            let body = BatchBody(items: [
                .changeSet([
                    .init(method: "POST", url: "http://localhost/cardealer/Person(1)", body: #"{"ssn":"lf"}"#,
                          headers: ["X-HTTP-Method: MERGE", "If-Match: \(tag)"]),
                    .init(method: "MERGE", url: "Person(2)", body: #"{"ssn":"lf"}"#, headers: ["If-Match: \"stale\""]),
                ]),
                .changeSet([
                    .init(method: "POST", url: "http://localhost/cardealer/Person(1)", body: #"{"ssn":"lf"}"#,
                          headers: ["X-HTTP-Method: MERGE", "If-Match: \(tag)"]),
                ]),
                .query("/cardealer/Person(1)"),
            ])
            let text = body.text.replacingOccurrences(of: "\r\n", with: "\n")
            let response = try await client.send(.post, "/cardealer/$batch", headers: [.contentType: body.contentType], body: text)
            let answer = try BatchAnswer(response)
            #expect(answer.parts.map(\.status) == [412, 204, 200])
            #expect(answer.parts[2].json?["d"]["ssn"]?.stringValue == "lf")
        }
    }

    @Test("Malformed batches are refused with 400; operations out of place are refused per part", arguments: Backend.allCases)
    func malformed(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let state = ["/cardealer/Person/$count", "/cardealer/Person(1)"]
            try await client.expectRefused(.badRequest, unchanged: state) {
                try await client.send(.post, "/cardealer/$batch", headers: [.contentType: "application/json"], body: "{}")
            }
            try await client.expectRefused(.badRequest, unchanged: state) {
                try await client.send(.post, "/cardealer/$batch", headers: [.contentType: "multipart/mixed; boundary=b"], body: "--b\r\nContent-Type: application/http\r\n\r\nGET Person(1) HTTP/1.1\r\n\r\n")
            }
            try await client.expectRefused(.methodNotAllowed, unchanged: state) {
                try await client.get("/cardealer/$batch")
            }
            let body = BatchBody(items: [
                .changeSet([.init(method: "GET", url: "Person(1)")]),
                .changeSet([.init(method: "POST", url: "$batch", body: "{}")]),
                .changeSet([.init(method: "MERGE", url: "$7", body: #"{"firstName":"X"}"#)]),
            ])
            let before = try await client.snapshot(state)
            let answer = try BatchAnswer(try await client.batch(body))
            #expect(answer.parts.map(\.status) == [400, 400, 400])
            #expect(try await client.snapshot(state) == before)
        }
    }
}
