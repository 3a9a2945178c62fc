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

/// Keys the database generates (identity, serial, autoincrement) are the database's to choose on
/// every write path, unless the service lets clients choose them; then sequences keep up.
@Suite("Generated keys")
struct GeneratedKeyTests {
    static func message(_ response: TestResponse) -> String {
        response.odataError?.message ?? response.text
    }

    @Test("POST with a generated key is a 400 naming it; the table's next keys stay ordinary and addressable",
          arguments: Backend.allCases)
    func postRefused(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            // The issue's case: the largest Int32 would have made every later SQLite key unaddressable.
            let refused = try await client.expectRefused(.badRequest, unchanged: ["/cardealer/Person/$count", "/cardealer/Person(2147483647)"]) {
                try await client.post("/cardealer/Person", #"{"personID":2147483647,"firstName":"Max","lastName":"Int"}"#)
            }
            let message = Self.message(refused)
            #expect(message.contains("personID") && message.contains("assigned by the database"), "\(message)")
            for body in [#"{"personID":777777,"firstName":"A","lastName":"B"}"#, #"{"personID":-1,"firstName":"A","lastName":"B"}"#] {
                let response = try await client.post("/cardealer/Person", body)
                #expect(response.status == .badRequest, "\(body): \(response.text.prefix(300))")
            }
            #expect(try await client.get("/cardealer/Person(777777)").status == .notFound)

            let created = try await client.post("/cardealer/Person", #"{"firstName":"Next","lastName":"Ordinary"}"#)
            #expect(created.status == .created, "\(created.text.prefix(300))")
            let key = try #require(created.json["d"]["personID"]?.int64Value)
            #expect(key > 0 && key < 1_000_000)
            let read = try await client.get("/cardealer/Person(\(key))")
            #expect(read.status == .ok)
            #expect(read.json["d"]["lastName"]?.stringValue == "Ordinary")

            // null is no value: the database assigns the key, as when it is left out.
            let withNull = try await client.post("/cardealer/Person", #"{"personID":null,"firstName":"Null","lastName":"Key"}"#)
            #expect(withNull.status == .created, "\(withNull.text.prefix(300))")
            #expect((withNull.json["d"]["personID"]?.int64Value ?? 0) > key)
        }
    }

    @Test("Deep insert, POST under a parent and $batch refuse generated keys of every entity they create, changing nothing",
          arguments: Backend.allCases)
    func otherInsertPaths(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let counts = ["/cardealer/Person/$count", "/cardealer/PersonCar/$count", "/cardealer/Car/$count"]
            let deep = try await client.expectRefused(.badRequest, unchanged: counts) {
                try await client.post("/cardealer/Person", #"""
                    {"firstName":"Deep","lastName":"Insert","PersonCar":[{"Car":{"make":"Saab","model":"900"}},
                     {"personCarID":424242,"Car":{"make":"Volvo","model":"240"}}]}
                    """#)
            }
            #expect(Self.message(deep).contains("personCarID of Person/PersonCar[1]"), "\(Self.message(deep))")
            let nested = try await client.expectRefused(.badRequest, unchanged: counts) {
                try await client.post("/cardealer/Person", #"{"firstName":"D","lastName":"I","PersonCar":[{"Car":{"carID":99,"make":"Saab","model":"900"}}]}"#)
            }
            #expect(Self.message(nested).contains("carID"), "\(Self.message(nested))")
            try await client.expectRefused(.badRequest, unchanged: counts) {
                try await client.post("/cardealer/Person(1)/PersonCar", #"{"personCarID":515151,"carID":1}"#)
            }

            let before = try await client.snapshot(counts)
            let body = BatchBody(items: [
                .changeSet([
                    .init(method: "POST", url: "Car", body: #"{"make":"Kept","model":"Out"}"#),
                    .init(method: "POST", url: "Person", body: #"{"personID":2147483647,"firstName":"Batch","lastName":"Key"}"#),
                ]),
            ])
            let answer = try BatchAnswer(try await client.batch(body))
            #expect(answer.parts.map(\.status) == [400])
            let message = answer.parts[0].json?["error"]["message"]["value"]?.stringValue ?? ""
            #expect(message.contains("personID"), "\(message)")
            #expect(try await client.snapshot(counts) == before, "the change set rolled back whole")
        }
    }

    @Test("Updates never change a generated key; sending it back unchanged is fine", arguments: Backend.allCases)
    func updates(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let person = ["/cardealer/Person(1)"]
            for request in [
                { try await client.put("/cardealer/Person(1)", #"{"personID":5000,"firstName":"Bob","lastName":"S"}"#) },
                { try await client.merge("/cardealer/Person(1)", #"{"personID":5000}"#) },
                { try await client.send(.patch, "/cardealer/Person(1)", headers: [.contentType: "application/json"], body: #"{"personID":5000}"#) },
                { try await client.put("/cardealer/Person(1)/personID", #"{"personID":5000}"#) },
            ] as [@Sendable () async throws -> TestResponse] {
                let refused = try await client.expectRefused(.badRequest, unchanged: person, request)
                #expect(Self.message(refused).contains("personID"), "\(Self.message(refused))")
            }
            let same = try await client.merge("/cardealer/Person(1)", #"{"personID":1,"firstName":"Bob"}"#)
            #expect(same.status == .noContent, "\(same.text.prefix(300))")
        }
    }

    @Test("$changes: a negative key is a placeholder the server replaces and reports, in the key or among the values; a chosen key is refused",
          arguments: Backend.allCases)
    func changes(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            // The values-only placeholder is the issue's case: it used to be stored as -1.
            let placeholders = try await client.apply(DataTableDelta(changes: [
                DataTableChange(id: "inValues", table: "Person", kind: .insert,
                                values: ["personID": .int32(-1), "firstName": .string("In"), "lastName": .string("Values")]),
                DataTableChange(id: "inKey", table: "Person", kind: .insert, key: ["personID": .int32(-2)],
                                values: ["firstName": .string("In"), "lastName": .string("Key")]),
                DataTableChange(id: "link", table: "PersonCar", kind: .insert,
                                values: ["personCarID": .int32(-5), "personID": .int32(-1), "carID": .int32(1)]),
            ]))
            #expect(placeholders.results.allSatisfy { $0.status == .applied }, "\(placeholders.results.map { $0.message ?? "" })")
            let first = try #require(placeholders.result("inValues")?.row?["personID"]?.integerValue)
            let second = try #require(placeholders.result("inKey")?.row?["personID"]?.integerValue)
            #expect(first > 0 && second > 0 && first != second)
            #expect(placeholders.result("link")?.row?["personID"]?.integerValue == first, "the detail follows its new master")
            #expect((placeholders.result("link")?.row?["personCarID"]?.integerValue ?? -1) > 0)
            #expect(placeholders.keys["Person"]?.map(\.temporary) == [["personID": .int32(-1)], ["personID": .int32(-2)]])
            #expect(try await client.get("/cardealer/Person(-1)").status == .notFound)

            let chosen = try await client.apply(DataTableDelta(mode: .independent, changes: [
                DataTableChange(id: "valueKey", table: "Person", kind: .insert,
                                values: ["personID": .int32(777777), "firstName": .string("A"), "lastName": .string("B")]),
                DataTableChange(id: "keyKey", table: "Person", kind: .insert, key: ["personID": .int32(777778)],
                                values: ["firstName": .string("A"), "lastName": .string("B")]),
            ]))
            for id in ["valueKey", "keyKey"] {
                let result = try #require(chosen.result(id))
                #expect(result.status == .failed)
                #expect(result.message?.contains("personID") == true && result.message?.contains("temporary key") == true, "\(result.message ?? "")")
            }
            #expect(try await client.get("/cardealer/Person(777777)").status == .notFound)
            #expect(try await client.get("/cardealer/Person(777778)").status == .notFound)
        }
    }

    @Test("$tables and $metadata describe generated keys as the writes treat them, before and after clients may choose them",
          arguments: Backend.allCases)
    func descriptions(_ backend: Backend) async throws {
        try await withWriteServer(backend) { client in
            func field() async throws -> DataTableField? {
                try await client.tables("/ledger/$tables/Counters?$top=0").first?.field("counterID")
            }
            /// The `<Property …>` element of the key, and the document's root attributes.
            func metadata() async throws -> (key: String, document: String) {
                let document = try await client.get("/ledger/$metadata").text
                let element = document.components(separatedBy: "<Property ").first { $0.hasPrefix(#"Name="counterID""#) } ?? ""
                return (String(element.prefix { $0 != ">" }), document)
            }
            let before = try #require(try await field())
            #expect(before.readOnly && before.serverGenerated && before.key)
            let refused = try await metadata()
            #expect(refused.key.contains(#"Nullable="false" annotation:StoreGeneratedPattern="Identity" sap:creatable="false" sap:updatable="false""#),
                    "\(refused.key)")
            #expect(refused.document.contains(#"xmlns:sap="http://www.sap.com/Protocols/SAPData""#))

            try await Self.allowClientKeys(client, "ledger")
            let after = try #require(try await field())
            #expect(!after.readOnly && after.serverGenerated && after.key)
            let allowed = try await metadata()
            #expect(allowed.key.contains(#"annotation:StoreGeneratedPattern="Identity" sap:updatable="false""#), "\(allowed.key)")
            #expect(!allowed.key.contains("sap:creatable"))
            // The cardealer service keeps its own setting.
            #expect(try await client.tables("/cardealer/$tables/Person?$top=0").first?.field("personID")?.readOnly == true)
        }
    }

    @Test("With client keys allowed, a given key is stored and the next ordinary insert continues after it (PostgreSQL's sequence moves)",
          arguments: Backend.allCases)
    func allowed(_ backend: Backend) async throws {
        try await withWriteServer(backend) { client in
            try await Self.allowClientKeys(client, "ledger")
            // The ledger holds counters 1 and 2: 3 is the identity's next value, which on PostgreSQL
            // used to leave the sequence at 3 and make the next ordinary insert a 409.
            let next = try await client.post("/ledger/Counters", #"{"counterID":3,"name":"chosen"}"#)
            #expect(next.status == .created, "\(next.text.prefix(300))")
            #expect(next.json["d"]["counterID"]?.int64Value == 3)
            let ordinary = try await client.post("/ledger/Counters", #"{"name":"ordinary"}"#)
            #expect(ordinary.status == .created, "\(ordinary.text.prefix(300))")
            #expect(ordinary.json["d"]["counterID"]?.int64Value == 4)

            let far = try await client.post("/ledger/Counters", #"{"counterID":100,"name":"far"}"#)
            #expect(far.status == .created, "\(far.text.prefix(300))")
            let afterFar = try await client.post("/ledger/Counters", #"{"name":"after far"}"#)
            #expect(afterFar.json["d"]["counterID"]?.int64Value == 101, "\(afterFar.text.prefix(300))")
            // A smaller key leaves the sequence where it is.
            let below = try await client.post("/ledger/Counters", #"{"counterID":50,"name":"below"}"#)
            #expect(below.status == .created, "\(below.text.prefix(300))")
            let afterBelow = try await client.post("/ledger/Counters", #"{"name":"after below"}"#)
            #expect(afterBelow.json["d"]["counterID"]?.int64Value == 102, "\(afterBelow.text.prefix(300))")
            #expect(try await client.get("/ledger/Counters(50)").status == .ok)

            // $changes: a chosen key is stored, a negative one is still a placeholder.
            let delta = try await client.apply(DataTableDelta(changes: [
                DataTableChange(id: "chosen", table: "Counters", kind: .insert, key: ["counterID": .int32(200)], values: ["name": .string("c200")]),
                DataTableChange(id: "placeholder", table: "Counters", kind: .insert, key: ["counterID": .int32(-1)], values: ["name": .string("tmp")]),
            ]), service: "ledger")
            #expect(delta.results.allSatisfy { $0.status == .applied }, "\(delta.results.map { $0.message ?? "" })")
            #expect(delta.result("chosen")?.row?["counterID"]?.integerValue == 200)
            #expect(delta.result("placeholder")?.row?["counterID"]?.integerValue == 201)
            let last = try await client.post("/ledger/Counters", #"{"name":"last"}"#)
            #expect(last.json["d"]["counterID"]?.int64Value == 202, "\(last.text.prefix(300))")
            // A key taken already is a conflict like any other, naming the table.
            try await client.expectRefused(.conflict, code: "Conflict", unchanged: ["/ledger/Counters(1)", "/ledger/Counters/$count"],
                                           messageContains: "Counters") {
                try await client.post("/ledger/Counters", #"{"counterID":1,"name":"duplicate"}"#)
            }
            // Keys still never change.
            try await client.expectRefused(.badRequest, unchanged: ["/ledger/Counters(200)"]) {
                try await client.merge("/ledger/Counters(200)", #"{"counterID":300}"#)
            }
        }
    }

    /// `PUT /admin/services`: the setting applies at once (the services are loaded again).
    static func allowClientKeys(_ client: any TestClientProtocol, _ service: String) async throws {
        let response = try await client.send(.put, "/admin/services", headers: [.contentType: "application/json"],
                                             body: #"{"service":"\#(service)","allowClientKeys":true}"#)
        #expect(response.status == .ok, "\(response.text.prefix(300))")
        #expect(response.json[service]["allowClientKeys"] == .bool(true))
    }
}
