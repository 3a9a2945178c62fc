import Foundation
@testable import StrataClient
import Testing

/// The client's reading of a `$batch` answer: statuses, headers and bodies of every part, change
/// sets nested, the part's `Content-ID` carried to its response.
@Suite("Batch answers")
struct BatchReadTests {
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

    static let batchURL = URL(string: "http://h/s/$batch")!

    static func answer(contentType: String, body: String) -> StrataResponse {
        StrataResponse(status: 202, headers: ["Content-Type": contentType], body: Data(body.utf8), url: batchURL)
    }

    @Test("Reads Strata's batch answer: queries, change sets, a failed change set")
    func readServerAnswer() throws {
        let response = Self.answer(contentType: "multipart/mixed; boundary=batchresponse_1", body: Self.serverAnswer)
        let results = try Batch.read(response, expecting: [.query("Person(1)"), .changeSet([]), .changeSet([])])
        #expect(results.map(\.isChangeSet) == [false, true, true])
        #expect(results[0].responses[0].status == 200 && results[0].succeeded)
        #expect(try results[0].responses[0].entity()["a"] != nil)
        #expect(results[1].responses.map(\.status) == [201, 204])
        #expect(results[1].responses.map { $0.headers["Content-ID"] } == ["1", "2"])
        #expect(results[1].responses[1].headers["ETag"] == "\"e8\"")
        #expect(results[2].responses.map(\.status) == [412])
        #expect(results[2].error?.kind == .preconditionFailed)
    }

    @Test("An answer that is not multipart/mixed, is cut short or has the wrong number of parts is invalid")
    func invalidAnswers() {
        let cut = String(Self.serverAnswer.dropLast(20))
        for response in [Self.answer(contentType: "application/json", body: "{}"),
                         Self.answer(contentType: "multipart/mixed; boundary=batchresponse_1", body: cut)] {
            #expect(throws: StrataError.self) { try Batch.read(response, expecting: [.query("a"), .changeSet([]), .changeSet([])]) }
        }
        let whole = Self.answer(contentType: "multipart/mixed; boundary=batchresponse_1", body: Self.serverAnswer)
        do {
            _ = try Batch.read(whole, expecting: [.query("a")])
            Issue.record("three parts were read as the answer to one")
        } catch {
            #expect(error.kind == .invalidResponse)
        }
    }
}
