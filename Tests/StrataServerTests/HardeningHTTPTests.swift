import Foundation
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// Requests that are not well-formed HTTP, or whose body ends early, over real sockets: each gets a
/// 400 with an OData error body that says what was wrong, and changes nothing (a hostile probe got
/// 500s from bodies cut short and empty 400s from malformed heads). HTTP/1.0 clients that do not
/// ask to keep the connection have it closed after their answer.
@Suite("Hardening: malformed and truncated HTTP")
struct HardeningHTTPTests {
    static let editor = AdministratorTestClient.authorization

    static func status(_ response: String) -> Int? {
        let line = response.prefix { $0 != "\r" }.split(separator: " ")
        return line.count >= 2 ? Int(line[1]) : nil
    }

    static func body(_ response: String) -> String {
        response.range(of: "\r\n\r\n").map { String(response[$0.upperBound...]) } ?? ""
    }

    /// `GET path` on a connection of its own; the body of the answer.
    static func get(_ port: Int, _ path: String) async throws -> String {
        body(try await RawSocket.exchange(port: port, "GET \(path) HTTP/1.1\r\nHost: localhost\r\nAuthorization: \(editor)\r\nConnection: close\r\n\r\n"))
    }

    @Test("A body that ends before its Content-Length, or a chunk size of 2^64-1, then a half-close: 400 with an OData error, nothing written", arguments: Backend.allCases)
    func truncatedBodies(_ backend: Backend) async throws {
        try await withLiveServer(backend) { port in
            let people = try await Self.get(port, "/cardealer/Person/$count")
            let made = try await RawSocket.exchange(port: port, "PUT /blobs/files HTTP/1.1\r\nHost: localhost\r\nAuthorization: \(Self.editor)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            #expect(Self.status(made) == 201, "\(made)")
            let cases: [(name: String, request: String)] = [
                ("$sql, anonymous", "POST /cardealer/$sql HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"sql\":"),
                ("entity set, editor", "POST /cardealer/Person HTTP/1.1\r\nHost: localhost\r\nAuthorization: \(Self.editor)\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"firstName\":\"Cut\",\"lastName\":\"Short\"}"),
                ("blob PUT, editor", "PUT /blobs/files/cut-short.jpg HTTP/1.1\r\nHost: localhost\r\nAuthorization: \(Self.editor)\r\nContent-Type: image/jpeg\r\nContent-Length: 100000\r\n\r\n\u{FF}\u{D8}\u{FF}abcd"),
                ("$changes, editor", "POST /cardealer/$changes HTTP/1.1\r\nHost: localhost\r\nAuthorization: \(Self.editor)\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"changes\":["),
                ("chunk size 2^64-1", "POST /cardealer/$sql HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFF\r\n{\"sql"),
                ("chunk size past 2^64", "POST /cardealer/Person HTTP/1.1\r\nHost: localhost\r\nAuthorization: \(Self.editor)\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFF\r\n{\"firs"),
                ("blob PUT, chunked then cut", "PUT /blobs/files/cut-chunked.jpg HTTP/1.1\r\nHost: localhost\r\nAuthorization: \(Self.editor)\r\nContent-Type: image/jpeg\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n1000\r\nabc"),
            ]
            for item in cases {
                let response = try await RawSocket.exchange(port: port, item.request, halfClose: true)
                #expect(Self.status(response) == 400, "\(item.name): \(response.prefix(300))")
                let error = try? JSONValue.parse(Array(Self.body(response).utf8))
                #expect(error?["error"]?["code"]?.stringValue == "MalformedRequest", "\(item.name): \(response.prefix(400))")
                #expect(Self.body(response).contains("nothing was changed"), "\(item.name)")
                #expect(!response.contains("500"), "\(item.name)")
            }
            #expect(try await Self.get(port, "/cardealer/Person/$count") == people)
            for name in ["cut-short.jpg", "cut-chunked.jpg"] {
                let blob = try await RawSocket.exchange(port: port, "HEAD /blobs/files/\(name) HTTP/1.1\r\nHost: localhost\r\nAuthorization: \(Self.editor)\r\nConnection: close\r\n\r\n")
                #expect(Self.status(blob) == 404, "\(name) was stored: \(blob.prefix(200))")
            }
        }
    }

    @Test("A write the caller may not make is refused before its body is read: 401 while the body has not even been sent", arguments: Backend.allCases)
    func writeRefusedBeforeBody(_ backend: Backend) async throws {
        try await withLiveServer(backend) { port in
            let people = try await Self.get(port, "/cardealer/Person/$count")
            // Anonymous callers may read CarDealer but not write it. The head announces 10 MB that
            // never come: the answer must not wait for them (the body timeout is far longer).
            let socket = try RawSocket(port: port)
            defer { socket.close() }
            let start = ContinuousClock.now
            socket.send("POST /cardealer/Person HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n{\"firs")
            let response = await socket.readResponse(timeout: .seconds(20))
            #expect(response.map(Self.status) == 401, "\(response?.prefix(300) ?? "no answer")")
            #expect(ContinuousClock.now - start < .seconds(15), "the refusal waited for the body")
            #expect(try await Self.get(port, "/cardealer/Person/$count") == people)
            // A refused write whose body was sent but never read leaves the connection usable: the
            // next request on it is answered as itself, not parsed from the unread body.
            let body = #"{"firstName":"Unread","lastName":"Body"}"#
            let both = try await RawSocket.exchange(port: port, "POST /cardealer/Person HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                + "GET /cardealer/Person/$count HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            #expect(Self.status(both) == 401, "\(both.prefix(300))")
            #expect(both.components(separatedBy: "HTTP/1.1 200 OK").count == 2, "the second request was not answered: \(both.prefix(800))")
            #expect(both.hasSuffix(people), "\(both.suffix(200))")
        }
    }

    @Test("A malformed request line or head gets a 400 whose OData error body says what was wrong; one after a good request follows its answer")
    func malformedHeads() async throws {
        try await withLiveServer(.sqlite) { port in
            let cases: [(name: String, request: [UInt8], says: String)] = [
                ("control character in the method", Array("GE\u{1}T / HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8), "method"),
                ("control character in the target", Array("GET /card\u{7}ealer HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8), "URL"),
                ("unknown method", Array("BREW /cardealer HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8), "method"),
                ("80 KiB header", Array("GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: \(String(repeating: "a", count: 82 * 1024))\r\n\r\n".utf8), "headers are larger"),
                ("bad version", Array("GET / HTTP/9\r\nHost: localhost\r\n\r\n".utf8), "HTTP/1.0 or HTTP/1.1"),
            ]
            for item in cases {
                let response = try await RawSocket.exchange(port: port, item.request)
                #expect(Self.status(response) == 400, "\(item.name): \(response.prefix(300))")
                let message = (try? JSONValue.parse(Array(Self.body(response).utf8)))?["error"]?["message"]?["value"]?.stringValue
                #expect(message?.contains(item.says) == true, "\(item.name): \(response.prefix(400))")
                #expect(response.lowercased().contains("connection: close"), "\(item.name)")
            }
            // Pipelined: the good request is answered first, then the malformed one.
            let both = try await RawSocket.exchange(port: port, "GET /health/live HTTP/1.1\r\nHost: localhost\r\n\r\nGE\u{1}T / HTTP/1.1\r\n\r\n")
            let ok = both.range(of: "HTTP/1.1 200"), refused = both.range(of: "HTTP/1.1 400")
            #expect(ok != nil && refused != nil && ok!.lowerBound < refused!.lowerBound, "\(both.prefix(600))")
        }
    }

    @Test("HTTP/1.0: without keep-alive the connection closes after the answer; with it, a sized answer keeps it; a streamed answer is not chunked")
    func http10() async throws {
        try await withLiveServer(.sqlite) { port in
            // The tests' idle timeout is 600 s: a close within seconds is the answer's doing.
            let plain = try RawSocket(port: port)
            defer { plain.close() }
            plain.send("GET /cardealer/Person(1) HTTP/1.0\r\n\r\n")
            let start = ContinuousClock.now
            let answer = await plain.readUntilClosed(timeout: .seconds(20))
            #expect(answer.closed && ContinuousClock.now - start < .seconds(10), "HTTP/1.0 connection left open")
            #expect(answer.text.hasPrefix("HTTP/1.0 200"), "\(answer.text.prefix(200))")
            #expect(answer.text.lowercased().contains("connection: close"))

            let kept = try RawSocket(port: port)
            defer { kept.close() }
            for _ in 0..<2 {
                kept.send("GET /cardealer/Person(1) HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                let response = await kept.readResponse(timeout: .seconds(10))
                #expect(response?.hasPrefix("HTTP/1.0 200") == true, "\(response ?? "no answer")")
                #expect(response?.lowercased().contains("connection: keep-alive") == true)
            }

            let streamed = try await RawSocket.exchange(port: port, "GET /cardealer/Person?$top=3 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(streamed.hasPrefix("HTTP/1.0 200"), "\(streamed.prefix(200))")
            #expect(!streamed.lowercased().contains("transfer-encoding"), "HTTP/1.0 clients cannot read chunked bodies")
            let document = try JSONValue.parse(Array(Self.body(streamed).utf8))
            #expect(document["d"]?["results"]?.arrayValue?.count == 3)
        }
    }
}
