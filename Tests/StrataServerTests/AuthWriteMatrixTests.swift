import Foundation
import HTTPTypes
import HummingbirdTesting
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// The write half of the authorization matrix: every caller × POST, MERGE, DELETE and `$batch` ×
/// demo service, with the exact status, and proof that a refused write changes nothing.
@Suite("Auth: write matrix", .serialized)
struct AuthWriteMatrixTests {
    /// A new entity, a change to an existing one, per service.
    static let targets: [(service: String, set: String, insert: @Sendable (String) -> String, key: String, change: String, changed: String)] = [
        ("cardealer", "Car", { #"{"make":"Matrix","model":"\#($0)"}"# }, "Car(1)", #"{"model":"Changed"}"#, "model"),
        ("speakeasy", "Locations", { #"{"PartitionKey":"locations","RowKey":"m-\#($0)","City":"Matrix","State":"ON"}"# },
         "Locations(PartitionKey='locations',RowKey='m-seed')", #"{"City":"Changed"}"#, "City"),
        ("hockey", "Equipment", { #"{"category":"Stick","brand":"Sherwood","model":"\#($0)","inStock":true}"# }, "Equipment(1)",
         #"{"model":"Changed"}"#, "model"),
    ]

    /// Only editors and admins write in the demo; readers (for every service or for hockey) may not.
    static func expected(_ caller: String, success: HTTPResponse.Status) -> HTTPResponse.Status {
        switch caller {
        case "anonymous": return .unauthorized
        case "editor", "admin": return success
        default: return .forbidden
        }
    }

    @Test("Write matrix: every caller × POST, MERGE, DELETE, $batch × demo service", arguments: Backend.allCases)
    func writeMatrix(_ backend: Backend) async throws {
        try await withAuthServer(backend) { client in
            let admin = basic(TestAccounts.admin) + [.contentType: "application/json"]
            // speakeasy's MERGE target.
            #expect(try await client.send(.post, "/speakeasy/Locations", headers: admin,
                                          body: #"{"PartitionKey":"locations","RowKey":"m-seed","City":"Seed","State":"ON"}"#).status == .created)
            for target in Self.targets {
                for (index, caller) in AuthAccessTests.callers.enumerated() {
                    let label = "\(caller.name) \(target.service)"
                    let json = caller.headers + [.contentType: "application/json"]
                    let before = try await client.get("/\(target.service)/\(target.set)/$count", headers: basic(TestAccounts.admin)).text

                    let post = try await client.send(.post, "/\(target.service)/\(target.set)", headers: json, body: target.insert("p\(index)"))
                    #expect(post.status == Self.expected(caller.name, success: .created), "POST \(label): \(post.text.prefix(200))")

                    let original = try await client.get("/\(target.service)/\(target.key)", headers: basic(TestAccounts.admin)).json["d"][target.changed]
                    let merge = try await client.send(HTTPRequest.Method("MERGE")!, "/\(target.service)/\(target.key)", headers: json, body: target.change)
                    #expect(merge.status == Self.expected(caller.name, success: .noContent), "MERGE \(label): \(merge.text.prefix(200))")
                    let after = try await client.get("/\(target.service)/\(target.key)", headers: basic(TestAccounts.admin)).json["d"][target.changed]
                    if merge.status != .noContent { #expect(after == original, "refused MERGE \(label) changed nothing") }

                    // Something to delete that nothing refers to, made by the administrator.
                    let victim = try await client.send(.post, "/\(target.service)/\(target.set)", headers: admin, body: target.insert("d\(index)"))
                    let location = try #require(victim.headers[.location]).replacingOccurrences(of: "http://localhost", with: "")
                    let delete = try await client.send(.delete, location, headers: caller.headers)
                    #expect(delete.status == Self.expected(caller.name, success: .noContent), "DELETE \(label): \(delete.text.prefix(200))")
                    let still = try await client.get(location, headers: basic(TestAccounts.admin)).status
                    #expect(still == (delete.status == .noContent ? .notFound : .ok), "DELETE \(label) took effect only when allowed")

                    let batch = BatchBody(items: [.changeSet([.init(method: "POST", url: target.set, body: target.insert("b\(index)"))])])
                    let batched = try await client.send(.post, "/\(target.service)/$batch",
                                                        headers: caller.headers + [.contentType: batch.contentType], body: batch.text)
                    // A caller who may use nothing in the service (its $metadata is refused) is refused
                    // the whole $batch, before any part is read; otherwise the $batch request itself is
                    // accepted and the refusal is the change set's answer.
                    let serviceAnswer = try await client.get("/\(target.service)/$metadata", headers: caller.headers).status
                    if serviceAnswer == .unauthorized || serviceAnswer == .forbidden {
                        #expect(batched.status == serviceAnswer, "$batch \(label)")
                        #expect(batched.status == Self.expected(caller.name, success: .created), "$batch \(label)")
                    } else {
                        #expect(batched.status == .accepted, "$batch \(label)")
                        let parts = try BatchAnswer(batched).parts.map(\.status)
                        #expect(parts == [Int(Self.expected(caller.name, success: .created).code)], "$batch \(label) parts")
                    }

                    // The caller's POST and batched POST when allowed; the administrator's entity when the DELETE was refused.
                    let insertedByCaller = (Self.expected(caller.name, success: .created) == .created ? 2 : 0) + (delete.status == .noContent ? 0 : 1)
                    let count = try await client.get("/\(target.service)/\(target.set)/$count", headers: basic(TestAccounts.admin)).text
                    #expect(Int(count) == (Int(before) ?? 0) + insertedByCaller, "refused inserts of \(label) changed nothing")
                }
            }
        }
    }

    @Test("Row filters with claims hold on writes: rows outside them are refused and stay as they were", arguments: Backend.allCases)
    func rowFiltersOnWrites(_ backend: Backend) async throws {
        try await withAuthServer(backend, setup: { admin in
            try await admin.addUser("Bauer", password: "pw-Bauer", roles: [RoleAssignment(role: "brandrep")])
            try await admin.grant(role: "brandrep", service: "hockey", table: "Equipment", actions: TableAction.allCases,
                                  rowFilter: "brand eq $claims.sub")
        }) { client in
            let rep = basic("Bauer") + [.contentType: "application/json"]
            let root = basic(TestAccounts.admin)
            let merge = HTTPRequest.Method("MERGE")!
            // Equipment 1 is Bauer's, 3 is a CCM helmet.
            #expect(try await client.send(merge, "/hockey/Equipment(1)", headers: rep, body: #"{"size":"XL"}"#).status == .noContent)
            #expect(try await client.get("/hockey/Equipment(1)", headers: root).json["d"]["size"]?.stringValue == "XL")
            let foreign = try await client.send(merge, "/hockey/Equipment(3)", headers: rep, body: #"{"size":"XL"}"#)
            #expect(foreign.status == .forbidden, "\(foreign.status)")
            #expect(try await client.get("/hockey/Equipment(3)", headers: root).json["d"]["size"]?.stringValue == "L")
            // Moving a row out of the filter is refused, and nothing changes.
            let moved = try await client.send(merge, "/hockey/Equipment(1)", headers: rep, body: #"{"brand":"CCM"}"#)
            #expect(moved.status == .forbidden)
            #expect(try await client.get("/hockey/Equipment(1)", headers: root).json["d"]["brand"]?.stringValue == "Bauer")
            let count = try await client.get("/hockey/Equipment/$count", headers: root).text
            let outside = try await client.send(.post, "/hockey/Equipment", headers: rep, body: #"{"category":"Stick","brand":"CCM","inStock":true}"#)
            #expect(outside.status == .forbidden)
            #expect(try await client.get("/hockey/Equipment/$count", headers: root).text == count)
            let inside = try await client.send(.post, "/hockey/Equipment", headers: rep, body: #"{"category":"Stick","brand":"Bauer","inStock":true}"#)
            #expect(inside.status == .created)
            let deleteForeign = try await client.send(.delete, "/hockey/Equipment(4)", headers: basic("Bauer"))
            #expect(deleteForeign.status == .forbidden)
            #expect(try await client.get("/hockey/Equipment(4)", headers: root).status == .ok)
        }
    }

    @Test("A caller without the right to write is refused before the body is read: no schema details leak", arguments: Backend.allCases)
    func refusedBeforeValidation(_ backend: Backend) async throws {
        try await withAuthServer(backend) { client in
            let json: HTTPFields = [.contentType: "application/json"]
            let reader = basic(TestAccounts.reader) + json
            let merge = HTTPRequest.Method("MERGE")!
            // Each body is wrong in a way validation would name; the right is checked first.
            let attempts: [(HTTPRequest.Method, String, String)] = [
                (.post, "/cardealer/Person", #"{"firstName":"Ann"}"#),
                (.post, "/cardealer/Person", #"{"noSuchProperty":1}"#),
                (merge, "/cardealer/Person(1)", #"{"personID":"not a number"}"#),
                (.put, "/cardealer/Person(1)/firstName", #"{"firstName":42}"#),
                (.post, "/cardealer/Person(1)/$links/PersonCar", #"{"uri":"nonsense"}"#),
                (.delete, "/cardealer/Person(1)", ""),
            ]
            for (method, uri, body) in attempts {
                let anonymous = try await client.send(method, uri, headers: json, body: body)
                #expect(anonymous.status == .unauthorized, "anonymous \(method) \(uri): \(anonymous.text.prefix(200))")
                for detail in ["noSuchProperty", "required", "not a number", "Edm.", "personID"] {
                    #expect(!anonymous.text.contains(detail), "anonymous \(method) \(uri) learned '\(detail)': \(anonymous.text.prefix(200))")
                }
                // A link's right depends on which side holds the foreign key, decided after the body names the other side.
                if uri.contains("$links") { continue }
                let refused = try await client.send(method, uri, headers: reader, body: body)
                #expect(refused.status == .forbidden, "reader \(method) \(uri): \(refused.text.prefix(200))")
                // The reader's refusal names no property, type or rule the body got wrong either.
                for detail in ["noSuchProperty", "required", "not a number", "Edm.", "personID"] {
                    #expect(!refused.text.contains(detail), "reader \(method) \(uri) learned '\(detail)': \(refused.text.prefix(200))")
                }
            }
        }
    }
}
