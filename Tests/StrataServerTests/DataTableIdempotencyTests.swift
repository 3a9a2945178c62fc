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

/// `$changes` with `Idempotency-Key`: a retried change set is applied once and answered with what
/// was applied, on both databases.
@Suite("Data tables: idempotent change sets")
struct DataTableIdempotencyTests {
    static let keyHeader = HTTPField.Name(IdempotencyKey.headerName)!
    static let replayedHeader = HTTPField.Name(IdempotencyKey.replayedHeaderName)!

    static func newPerson(_ lastName: String, temporary: Int32 = -1) -> DataTableChange {
        DataTableChange(id: "p\(-temporary)", table: "Person", kind: .insert, key: ["personID": .int32(temporary)],
                        values: ["firstName": .string("Retry"), "lastName": .string(lastName)])
    }

    @Test("Sent three times with one key, a change set is applied once and answered the same; without a key, twice",
          arguments: Backend.allCases)
    func retried(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let delta = DataTableDelta(changes: [
                Self.newPerson("Once"),
                DataTableChange(id: "fix", table: "Person", kind: .update, key: ["personID": .int32(-1)], values: ["firstName": .string("Again")]),
            ])
            let key = IdempotencyKey.random()
            let first = try await client.send(delta, key: key)
            #expect(first.status == .ok, "\(first.text.prefix(300))")
            #expect(first.headers[Self.replayedHeader] == nil)
            for _ in 0 ..< 2 {
                let again = try await client.send(delta, key: key)
                #expect(again.status == .ok, "\(again.text.prefix(300))")
                #expect(again.headers[Self.replayedHeader] == "true")
                #expect(again.text == first.text, "a retry is answered with the stored results and key mapping")
            }
            #expect(try await client.people(lastName: "Once") == 1)
            #expect(first.text.contains("\"Again\""))
            // The same changes without a key are new changes.
            let plain = DataTableDelta(changes: [Self.newPerson("Twice")])
            for _ in 0 ..< 2 { #expect(try await client.send(plain, key: nil).status == .ok) }
            #expect(try await client.people(lastName: "Twice") == 2)
        }
    }

    @Test("The key with other changes is 422 and changes nothing; malformed keys are 400", arguments: Backend.allCases)
    func reused(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let key = IdempotencyKey.random()
            #expect(try await client.send(DataTableDelta(changes: [Self.newPerson("First")]), key: key).status == .ok)
            let other = try await client.send(DataTableDelta(changes: [Self.newPerson("Second")]), key: key)
            #expect(other.status.code == 422)
            #expect(other.text.contains("new key"), "\(other.text)")
            #expect(try await client.people(lastName: "Second") == 0)
            let body = String(decoding: DataTableDelta(changes: [Self.newPerson("Bad")]).jsonBytes, as: UTF8.self)
            for bad in [String(repeating: "k", count: 256), "naïve", "", "two words"] {
                let response = try await client.send(.post, "/cardealer/$changes", headers: [.contentType: "application/json", Self.keyHeader: bad], body: body)
                #expect(response.status == .badRequest, "\(bad.prefix(20)): \(response.status)")
                #expect(response.text.contains("Idempotency-Key"))
            }
            var two = HTTPFields([HTTPField(name: .contentType, value: "application/json")])
            two.append(HTTPField(name: Self.keyHeader, value: "a"))
            two.append(HTTPField(name: Self.keyHeader, value: "b"))
            #expect(try await client.send(.post, "/cardealer/$changes", headers: two, body: body).status == .badRequest)
            #expect(try await client.people(lastName: "Bad") == 0)
            // Quoted (the draft's structured-field form) and bare name the same key.
            let quoted = try await client.send(.post, "/cardealer/$changes", headers: [.contentType: "application/json", Self.keyHeader: "\"k-1\""], body: body)
            let bare = try await client.send(.post, "/cardealer/$changes", headers: [.contentType: "application/json", Self.keyHeader: "k-1"], body: body)
            #expect(quoted.status == .ok && bare.headers[Self.replayedHeader] == "true")
            #expect(try await client.people(lastName: "Bad") == 1)
        }
    }

    @Test("Independent mode: a retry replays the applied changes and tries the failed ones again", arguments: Backend.allCases)
    func independent(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            // The update expects a lastName the row does not have: a conflict, not applied.
            let delta = DataTableDelta(mode: .independent, changes: [
                Self.newPerson("Independent"),
                DataTableChange(id: "stale", table: "Person", kind: .update, key: ["personID": .int32(3)],
                                original: ["lastName": .string("Expected")], values: ["firstName": .string("Updated")]),
            ])
            let key = IdempotencyKey.random()
            let first = try await client.send(delta, key: key)
            #expect(first.text.contains("\"conflict\""), "\(first.text.prefix(400))")
            // The row now has the expected value: the retry applies the update, and the insert is not repeated.
            let prepare = try await client.apply(DataTableDelta(changes: [
                DataTableChange(id: "set", table: "Person", kind: .update, key: ["personID": .int32(3)], values: ["lastName": .string("Expected")]),
            ]))
            #expect(prepare.result("set")?.status == .applied)
            let retry = try await client.send(delta, key: key)
            #expect(retry.headers[Self.replayedHeader] == "true")
            #expect(!retry.text.contains("\"conflict\""), "\(retry.text.prefix(400))")
            #expect(try await client.people(lastName: "Independent") == 1)
            #expect(try await client.row("Person", key: "personID", 3)?["firstName"] == .string("Updated"))
        }
    }

    @Test("An all-or-nothing change set that failed keeps no receipt: the retry applies it", arguments: Backend.allCases)
    func failedThenApplied(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let delta = DataTableDelta(changes: [
                Self.newPerson("Atomic"),
                DataTableChange(id: "stale", table: "Person", kind: .update, key: ["personID": .int32(4)],
                                original: ["lastName": .string("Expected")], values: ["firstName": .string("Updated")]),
            ])
            let key = IdempotencyKey.random()
            let first = try await client.send(delta, key: key)
            #expect(first.text.contains("\"conflict\""))
            #expect(try await client.people(lastName: "Atomic") == 0, "rolled back with the conflict")
            _ = try await client.apply(DataTableDelta(changes: [
                DataTableChange(id: "set", table: "Person", kind: .update, key: ["personID": .int32(4)], values: ["lastName": .string("Expected")]),
            ]))
            let retry = try await client.send(delta, key: key)
            #expect(retry.headers[Self.replayedHeader] == nil, "nothing was stored under the key")
            #expect(try await client.people(lastName: "Atomic") == 1)
            #expect(try await client.send(delta, key: key).headers[Self.replayedHeader] == "true")
            #expect(try await client.people(lastName: "Atomic") == 1)
        }
    }

    @Test("Eight requests with one key at once: the changes are applied once; each answer is the results or a 409",
          arguments: Backend.allCases)
    func concurrent(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let delta = DataTableDelta(changes: (1 ... 20).map { Self.newPerson("Race", temporary: -Int32($0)) })
            let key = IdempotencyKey.random()
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0 ..< 8 { group.addTask { try await client.send(delta, key: key).status.code } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == 200 || $0 == 409 }, "\(statuses)")
            #expect(statuses.contains(200))
            #expect(try await client.people(lastName: "Race") == 20)
        }
    }
}

extension TestClientProtocol {
    /// `POST /cardealer/$changes` with an `Idempotency-Key` (or none).
    fileprivate func send(_ delta: DataTableDelta, key: IdempotencyKey?) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let key { headers[DataTableIdempotencyTests.keyHeader] = key.headerValue }
        return try await send(.post, "/cardealer/$changes", headers: headers, body: String(decoding: delta.jsonBytes, as: UTF8.self))
    }

    /// How many people have this last name.
    fileprivate func people(lastName: String) async throws -> Int {
        let table = try await tables("/cardealer/$tables/Person?$filter=lastName%20eq%20'\(lastName)'").first
        return table?.rows.count ?? -1
    }
}
