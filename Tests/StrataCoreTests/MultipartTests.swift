import StrataCore
import Testing

@Suite("Multipart")
struct MultipartTests {
    /// A `$batch` answer as Strata's server writes it: a query, a change set that worked, and one
    /// that failed (answered by a single part).
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

    static func text(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test("Reads a batch answer: parts, a nested change set, the HTTP messages inside")
    func readServerAnswer() throws {
        let parts = try MultipartMixed.parts(of: Array(Self.serverAnswer.utf8)[...], boundary: "batchresponse_1", what: "answer")
        #expect(parts.count == 3)
        let (statusLine, afterStatus) = MultipartMixed.firstLine(parts[0].body)
        #expect(statusLine == "HTTP/1.1 200 OK")
        let (headers, body) = try MultipartMixed.headerBlock(afterStatus, what: "part 1")
        #expect(headers.map(\.name) == ["Content-Type", "Content-Length"])
        #expect(Self.text(body) == #"{"d":{"__metadata":{"uri":"u/Person(1)"},"a":1}}"#)
        #expect(MultipartMixed.boundary(of: parts[1].header("content-type")) == "changesetresponse_2")
        let changes = try MultipartMixed.parts(of: parts[1].body, boundary: "changesetresponse_2", what: "change set")
        #expect(changes.map { $0.header("Content-ID") } == ["1", "2"])
        #expect(changes.map { MultipartMixed.firstLine($0.body).line } == ["HTTP/1.1 201 Created", "HTTP/1.1 204 No Content"])
        #expect(MultipartMixed.firstLine(parts[2].body).line == "HTTP/1.1 412 Precondition Failed")
    }

    @Test("Writing and reading are inverse, with bodies that contain line breaks and dashes, and change sets")
    func roundTrip() throws {
        let bodies = ["a\r\n--not-a-boundary\r\nb", "", "{\"x\":1}\n"]
        var writer = MultipartMixed.Writer(boundary: "b_1")
        for body in bodies {
            writer.startPart()
            writer.writeHeader("X-Test", "1")
            writer.endHeaders()
            writer.write(Array(body.utf8))
            writer.endPart()
        }
        writer.startChangeSet(boundary: "c_2")
        for body in bodies.reversed() {
            writer.startPart()
            writer.endHeaders()
            writer.write(body)
            writer.endPart()
        }
        writer.endChangeSet()
        #expect(writer.contentType == "multipart/mixed; boundary=b_1")
        let written = writer.finish()
        let read = try MultipartMixed.parts(of: written[...], boundary: "b_1", what: "message")
        #expect(read.count == 4)
        #expect(read.prefix(3).map { Self.text($0.body) } == bodies)
        #expect(read.prefix(3).allSatisfy { $0.header("x-test") == "1" && $0.headers.count == 1 })
        let nested = try #require(MultipartMixed.boundary(of: read[3].header("Content-Type")))
        let changes = try MultipartMixed.parts(of: read[3].body, boundary: nested, what: "change set")
        #expect(changes.map { Self.text($0.body) } == bodies.reversed())
        #expect(Self.text(written[...]).hasSuffix("--c_2--\r\n--b_1--\r\n"))
    }

    @Test("Lines ending in LF alone read like CRLF; padding after a delimiter is skipped")
    func lenientLineEnds() throws {
        let body = "preamble\n--b  \nContent-Type: application/http\n\nGET Person(1) HTTP/1.1\nAccept: */*\n\n\n--b--\nepilogue"
        let parts = try MultipartMixed.parts(of: Array(body.utf8)[...], boundary: "b", what: "body")
        #expect(parts.count == 1)
        #expect(parts[0].header("CONTENT-TYPE") == "application/http")
        let (line, rest) = MultipartMixed.firstLine(parts[0].body)
        #expect(line == "GET Person(1) HTTP/1.1")
        let (headers, content) = try MultipartMixed.headerBlock(rest, what: "operation")
        #expect(headers.count == 1 && headers[0].name == "Accept" && headers[0].value == "*/*")
        #expect(content.isEmpty)
    }

    @Test("The boundary of multipart/mixed only: quoted or not, 1 to 70 characters")
    func boundaries() {
        #expect(MultipartMixed.boundary(of: #"multipart/mixed; boundary="quoted_2""#) == "quoted_2")
        #expect(MultipartMixed.boundary(of: "Multipart/Mixed;charset=utf-8; BOUNDARY=b") == "b")
        #expect(MultipartMixed.boundary(of: "multipart/related; boundary=b") == nil)
        #expect(MultipartMixed.boundary(of: "application/json") == nil)
        #expect(MultipartMixed.boundary(of: "multipart/mixed") == nil)
        #expect(MultipartMixed.boundary(of: "multipart/mixed; boundary=" + String(repeating: "x", count: 71)) == nil)
        #expect(MultipartMixed.boundary(of: nil) == nil)
        let made = MultipartMixed.makeBoundary("batch")
        #expect(made.hasPrefix("batch_") && made != MultipartMixed.makeBoundary("batch"))
        #expect(MultipartMixed.boundary(of: "multipart/mixed; boundary=\(made)") == made)
    }

    @Test("A body without its closing delimiter, or a header line without a colon, is refused")
    func malformed() {
        #expect(throws: ODataError.self) {
            try MultipartMixed.parts(of: Array("--b\r\n\r\nx\r\n".utf8)[...], boundary: "b", what: "body")
        }
        #expect(throws: ODataError.self) {
            try MultipartMixed.parts(of: Array("no delimiter at all".utf8)[...], boundary: "b", what: "body")
        }
        do {
            _ = try MultipartMixed.parts(of: Array("--b\r\nnot a header\r\n\r\nx\r\n--b--\r\n".utf8)[...], boundary: "b", what: "body")
            Issue.record("a header line without a colon was accepted")
        } catch {
            #expect(error.status == 400 && error.message.contains("no colon"))
        }
    }
}
