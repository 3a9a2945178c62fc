import Foundation
import HTTPTypes
import HummingbirdTesting
import StrataCore
@testable import StrataServer
import Testing

/// V4's `$batch` (issue 38, point 5): multipart and OData 4.01's JSON format, atomicity groups as
/// transactions, `$`-id references, `dependsOn`, and V4's rule to stop at the first failure unless
/// the client prefers `odata.continue-on-error`. Real clients' batches are in ODataV4ClientTests.
@Suite("OData V4: $batch")
struct ODataV4BatchTests {
    static let json: HTTPFields = [HTTPField.Name("OData-MaxVersion")!: "4.0", .contentType: "application/json"]

    static func statuses(_ response: TestResponse) -> [String: Int] {
        var statuses: [String: Int] = [:]
        for answer in response.json["responses"]?.arrayValue ?? [] {
            if let id = answer["id"]?.stringValue { statuses[id] = answer["status"]?.intValue }
        }
        return statuses
    }

    @Test("JSON: a group in one transaction, $1 across the batch, dependsOn, 200 with a response per request", arguments: Backend.allCases)
    func jsonBatch(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let body = #"""
            {"requests":[
              {"id":"1","atomicityGroup":"g","method":"post","url":"Car","body":{"make":"JsonBatch","model":"One"}},
              {"id":"2","atomicityGroup":"g","method":"patch","url":"$1","body":{"model":"Two"}},
              {"id":"3","dependsOn":["g"],"method":"get","url":"$1?$select=model"},
              {"id":"4","method":"get","url":"Person(1)?$select=firstName"}
            ]}
            """#
            let response = try await client.send(.post, "/cardealer/$batch", headers: Self.json, body: body)
            #expect(response.status == .ok, "\(response.text)")
            #expect(response.headers[HTTPField.Name("OData-Version")!] == "4.0")
            #expect(Self.statuses(response) == ["1": 201, "2": 204, "3": 200, "4": 200])
            let answers = response.json["responses"]?.arrayValue ?? []
            #expect(answers.prefix(2).allSatisfy { $0["atomicityGroup"]?.stringValue == "g" })
            #expect(answers.first { $0["id"]?.stringValue == "3" }?["body"]["model"]?.stringValue == "Two")
            #expect(answers.first { $0["id"]?.stringValue == "4" }?["body"]["firstName"]?.stringValue == "Bob")
        }
    }

    @Test("JSON: a failed group keeps nothing, its other requests are 424, dependents are 424, and without continue-on-error the rest is not run",
          arguments: Backend.allCases)
    func failures(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let before = try await client.get("/cardealer/Car/$count").text
            let body = #"""
            {"requests":[
              {"id":"a","atomicityGroup":"g","method":"post","url":"Car","body":{"make":"Never","model":"One"}},
              {"id":"b","atomicityGroup":"g","method":"patch","url":"Car(999999)","body":{"model":"Two"}},
              {"id":"c","dependsOn":["g"],"method":"get","url":"Car(1)"},
              {"id":"d","method":"get","url":"Person(1)"}
            ]}
            """#
            var going = Self.json
            going[HTTPField.Name("Prefer")!] = "odata.continue-on-error"
            let continued = try await client.send(.post, "/cardealer/$batch", headers: going, body: body)
            #expect(Self.statuses(continued) == ["a": 424, "b": 404, "c": 424, "d": 200], "\(continued.text)")
            #expect(try await client.get("/cardealer/Car/$count").text == before)

            let stopped = try await client.send(.post, "/cardealer/$batch", headers: Self.json, body: body)
            #expect(Self.statuses(stopped) == ["a": 424, "b": 404], "V4 stops at the first failure: \(stopped.text)")
            #expect(try await client.get("/cardealer/Car/$count").text == before)
        }
    }

    @Test("Malformed JSON batches are 400 with V4's error body and run nothing", arguments: Backend.allCases)
    func malformed(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let before = try await client.get("/cardealer/Car/$count").text
            let cases: [(String, String)] = [
                (#"{"requests":"#, "not valid JSON"),
                (#"{"operations":[]}"#, "\"requests\" array"),
                (#"{"requests":[{"method":"get","url":"Car(1)"}]}"#, "has no \"id\""),
                (#"{"requests":[{"id":"1","method":5,"url":"Car(1)"}]}"#, "no \"method\""),
                (#"{"requests":[{"id":"1","method":"get"}]}"#, "no \"url\""),
                (#"{"requests":[{"id":"1","method":"get","url":"Car(1)"},{"id":"1","method":"get","url":"Car(2)"}]}"#, "used by an earlier request"),
                (#"{"requests":[{"id":"1","method":"get","url":"Car(1)","dependsOn":["9"]}]}"#, "no earlier request"),
                (#"{"requests":[{"id":"1","atomicityGroup":"g","method":"post","url":"Car","body":{"make":"X","model":"Y"}},{"id":"2","method":"get","url":"Car(1)"},{"id":"3","atomicityGroup":"g","method":"post","url":"Car","body":{"make":"X","model":"Y"}}]}"#, "adjacent"),
            ]
            for (body, message) in cases {
                let response = try await client.send(.post, "/cardealer/$batch", headers: Self.json, body: body)
                #expect(response.status == .badRequest, "\(body): \(response.text)")
                #expect(response.json["error"]["message"]?.stringValue?.contains(message) == true, "\(body): \(response.text)")
            }
            #expect(try await client.get("/cardealer/Car/$count").text == before)
        }
    }
}
