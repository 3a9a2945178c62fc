import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import StrataClient
import StrataCore
import Testing

/// The delta APIs against scripted servers answering the contract's documents: OData delta links
/// with tombstones, `$tables` tracking and paged deltas, long-poll waits, 410.
@Suite("Delta clients")
struct DeltaClientTests {
    static let prefer = HTTPField.Name("Prefer")!

    static func json(_ text: String, status: Int = 200) -> Hummingbird.Response {
        Hummingbird.Response(status: .init(code: status), headers: [.contentType: "application/json"],
                             body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static let gone = #"{"error":{"code":"DeltaTokenGone","message":{"lang":"en-US","value":"The delta link expired; read Cars again."}}}"#

    @Test("A tracked read sends the preference, follows __next, and returns the delta link; the delta returns tombstones")
    func odataDelta() async throws {
        let seen = NIOLockedValueBox<[(path: String, prefer: String?)]>([])
        let router = Router()
        router.get("/cardealer/Cars") { request, _ -> Hummingbird.Response in
            let query = request.uri.query ?? ""
            seen.withLockedValue { $0.append((request.uri.path + "?" + query, request.headers[Self.prefer])) }
            let root = "http://\(request.head.authority ?? "localhost")/cardealer/"
            if query.contains("!deltatoken=D1") {
                return Self.json(#"""
                {"d":{"results":[
                  {"__metadata":{"uri":"\#(root)Cars(5)","type":"CarDealer.Car"},"carID":5,"make":"Audi","price":"18000"},
                  {"@odata.context":"$metadata#Cars/$deletedEntity","id":"\#(root)Cars(9)"}],
                 "__delta":"\#(root)Cars?$select=carID,make,price&!deltatoken=D2"}}
                """#)
            }
            if query.contains("!deltatoken=OLD") { return Self.json(Self.gone, status: 410) }
            if query.contains("!deltastart=S") {
                return Self.json(#"{"d":{"results":[{"__metadata":{"uri":"\#(root)Cars(2)"},"carID":2}],"__delta":"\#(root)Cars?!deltatoken=D1"}}"#)
            }
            return Self.json(#"{"d":{"results":[{"__metadata":{"uri":"\#(root)Cars(1)"},"carID":1}],"__next":"\#(root)Cars?$skiptoken=1&!deltastart=S"}}"#)
        }
        try await withRouter(router) { url in
            let service = DataService(connection: Connection(baseURL: url), path: "cardealer")
            let first = try await service.set("Cars").trackChanges()
            #expect(first.entities.compactMap { $0["carID"]?.integerValue } == [1, 2])
            #expect(first.deleted.isEmpty)
            let link = try #require(first.deltaLink)
            #expect(link.absoluteString.hasSuffix("Cars?!deltatoken=D1"))
            // Only the first request asks for tracking; __next carries the start itself.
            #expect(seen.withLockedValue { $0.map(\.prefer) } == ["odata.track-changes", nil])

            let delta = try await service.changes(since: link)
            #expect(delta.entities.map(\.uri?.absoluteString) == ["\(url.absoluteString)cardealer/Cars(5)"])
            #expect(delta.entities.first?["make"]?.stringValue == "Audi")
            #expect(delta.deleted == [ODataDeletedEntity(entitySet: "Cars", id: "\(url.absoluteString)cardealer/Cars(9)")])
            #expect(delta.deleted.first?.key == .single(.int32(9)) || delta.deleted.first?.key == .single(.int64(9)))
            #expect(delta.deltaLink?.absoluteString.hasSuffix("!deltatoken=D2") == true)

            // A long-poll adds wait=; an expired link is a typed 410.
            _ = try await service.deltaPage(at: link, wait: 5)
            #expect(seen.withLockedValue { $0.last?.path.hasSuffix("!deltatoken=D1&wait=5") } == true)
            let expired = URL(string: "\(url.absoluteString)cardealer/Cars?!deltatoken=OLD")!
            let error = await #expect(throws: StrataError.self) { try await service.changes(since: expired) }
            #expect(error?.kind == .deltaTokenGone)
            #expect(error?.code == "DeltaTokenGone")
            #expect(error?.message == "The delta link expired; read Cars again.")
        }
    }

    static let carFields = #"[{"name":"carID","type":"Edm.Int32","key":true,"serverGenerated":true},{"name":"make","type":"Edm.String"}]"#
    static let personFields = #"[{"name":"personID","type":"Edm.Int64","key":true},{"name":"name","type":"Edm.String"}]"#

    @Test("$tables: a tracked fetch gives the first token; changes follow next pages, merge them, wait, and 410")
    func tablesDelta() async throws {
        let seen = NIOLockedValueBox<[String]>([])
        let router = Router()
        router.get("/cardealer/$tables") { request, _ -> Hummingbird.Response in
            let query = request.uri.query ?? ""
            seen.withLockedValue { $0.append(query) }
            let car = Self.carFields, person = Self.personFields
            if query.contains("track=1") {
                return Self.json(#"{"tables":[{"name":"Car","fields":\#(car),"rows":[[5,"Audi"],[9,"Fiat"]]},{"name":"Person","fields":\#(person),"rows":[["7","Ann"]]}],"token":"T1"}"#)
            }
            if query.contains("page=2") {
                return Self.json(#"{"tables":[{"name":"Car","fields":\#(car),"rows":[],"deleted":[[12]]},{"name":"Person","fields":\#(person),"rows":[["8","Bob"]],"deleted":[["7"]]}],"token":"T2"}"#)
            }
            if query.contains("since=T1") {
                // First page of a split delta: car 5 changed and car 9 deleted; a later page changes 5 again.
                return Self.json(#"{"tables":[{"name":"Car","fields":\#(car),"rows":[[5,"Audi A4"],[12,"Kia"]],"deleted":[[9]]},{"name":"Person","fields":\#(person),"rows":[],"deleted":[]}],"next":"$tables?names=Car,Person&since=T1&page=2"}"#)
            }
            if query.contains("since=T2") {
                return Self.json(#"{"tables":[{"name":"Car","fields":\#(car),"rows":[],"deleted":[]},{"name":"Person","fields":\#(person),"rows":[],"deleted":[]}],"token":"T3"}"#)
            }
            return Self.json(#"{"error":{"code":"DeltaTokenGone","message":{"lang":"en-US","value":"Read the tables again."}}}"#, status: 410)
        }
        try await withRouter(router) { url in
            let adapter = RemoteDataAdapter(connection: Connection(baseURL: url), service: "cardealer")
            let first = try await adapter.trackedTables(["Car", "Person"])
            #expect(first.token == "T1")
            #expect(first.tables.map(\.name) == ["Car", "Person"])
            var briefcase = Briefcase(tables: first.tables)
            briefcase.deltaToken = first.token

            let delta = try await adapter.changes(in: ["Car", "Person"], since: "T1")
            #expect(delta.token == "T2")
            #expect(seen.withLockedValue { $0.last } == "names=Car,Person&since=T1&page=2")
            let car = try #require(delta.tables.first { $0.name == "Car" })
            // Page 2's tombstone for 12 replaces page 1's row for it.
            #expect(car.rows == [[.int32(5), .string("Audi A4")]])
            #expect(Set(car.deleted ?? []) == [[.int32(9)], [.int32(12)]])
            let person = try #require(delta.tables.first { $0.name == "Person" })
            #expect(person.rows == [[.int64(8), .string("Bob")]])
            #expect(person.deleted == [[.int64(7)]])

            let outcomes = try briefcase.apply(delta)
            #expect(briefcase.deltaToken == "T2")
            #expect(outcomes["Car"]?.removed == 1)
            #expect(outcomes["Car"]?.updated == 1)
            #expect(briefcase["Car"]?.rows.map { $0["make"] } == [.string("Audi A4")])
            #expect(briefcase["Person"]?.rows.map { $0["name"] } == [.string("Bob")])

            let empty = try await adapter.changes(in: ["Car", "Person"], since: "T2", wait: 30)
            #expect(empty.isEmpty)
            #expect(empty.token == "T3")
            #expect(seen.withLockedValue { $0.last } == "names=Car,Person&since=T2&wait=30")

            let error = await #expect(throws: StrataError.self) { try await adapter.changes(in: ["Car"], since: "OLD") }
            #expect(error?.kind == .deltaTokenGone)
        }
    }

    @Test("One narrowed table: the token inside the table object, the filter and select sent with both requests")
    func singleTableDelta() async throws {
        let seen = NIOLockedValueBox<[String]>([])
        let router = Router()
        router.get("/cardealer/$tables/Car") { request, _ -> Hummingbird.Response in
            let query = request.uri.query ?? ""
            seen.withLockedValue { $0.append(query) }
            if query.hasSuffix("track=1") {
                return Self.json(#"{"name":"Car","fields":\#(Self.carFields),"rows":[[5,"Audi"]],"token":"C1"}"#)
            }
            return Self.json(#"{"name":"Car","fields":\#(Self.carFields),"rows":[],"deleted":[[5]],"token":"C2"}"#)
        }
        try await withRouter(router) { url in
            let adapter = RemoteDataAdapter(connection: Connection(baseURL: url), service: "cardealer")
            let first = try await adapter.trackedTable("Car", where: "make eq 'Audi'", select: ["carID", "make"])
            #expect(first.token == "C1")
            var car = try #require(first.tables.first)
            let delta = try await adapter.changes(in: "Car", where: "make eq 'Audi'", select: ["carID", "make"], since: "C1")
            #expect(delta.token == "C2")
            try car.apply(try #require(delta.tables.first))
            #expect(car.rows.isEmpty)
            #expect(seen.withLockedValue { $0 } == [
                "$filter=make%20eq%20'Audi'&$select=carID,make&track=1",
                "$filter=make%20eq%20'Audi'&$select=carID,make&since=C1",
            ])
        }
    }

    @Test("Applying a delta upserts by key and removes deleted keys, leaving rows with local changes alone")
    func applyKeepsLocalChanges() throws {
        let fields = [
            DataTableField(name: "carID", type: .int32, required: true, key: true, serverGenerated: true),
            DataTableField(name: "make", type: .string),
            DataTableField(name: "price", type: .int32),
        ]
        var table = DataTable(name: "Car", fields: fields, rows: [
            [.int32(1), .string("Audi"), .int32(10)],
            [.int32(2), .string("BMW"), .int32(20)],
            [.int32(3), .string("Citroen"), .int32(30)],
            [.int32(4), .string("Dacia"), .int32(40)],
            [.int32(5), .string("Fiat"), .int32(50)],
        ])
        let ids = table.rows.map(\.id)
        try table.update(ids[1]) { try $0.set("price", to: 21) }   // modified locally
        try table.deleteRow(ids[3])                                 // deleted locally
        let added = try table.addRow(["make": "Kia", "price": 5])   // temporary key -1

        // The delta's fields in another order: values are matched by name.
        let delta = CompactTable(name: "Car", fields: [fields[2], fields[0], fields[1]], rows: [
            [.int32(11), .int32(1), .string("Audi")],     // unchanged row: takes the server's values
            [.int32(25), .int32(2), .string("BMW")],      // modified locally: kept, reported
            [.int32(60), .int32(6), .string("Opel")],     // new
        ], deleted: [[.int32(3)], [.int32(4)], [.int32(99)]])
        let outcome = try table.apply(delta)
        #expect(outcome.inserted == 1)
        #expect(outcome.updated == 1)
        #expect(outcome.removed == 2)     // 3 (unchanged) and 4 (deleted here too); 99 was never here
        #expect(outcome.keptLocalChanges == [ids[1]])
        #expect(table[ids[0]]?["price"] == .int32(11))
        #expect(table[ids[0]]?.state == .unchanged)
        #expect(table[ids[1]]?["price"] == .int32(21))
        #expect(table[ids[1]]?.originalValue(for: "price") == .int32(20))
        #expect(table[ids[2]] == nil)
        #expect(table[ids[3]] == nil)
        #expect(table[added]?.state == .added)
        #expect(table.rows.compactMap { $0["carID"]?.integerValue } == [1, 2, 5, -1, 6])
        // The local edit and the new row are still sent; nothing from the delta is.
        let changes = try table.changes()
        #expect(changes.map(\.kind) == [.update, .insert])

        // A local row with changes whose key the server deleted stays too.
        var second = DataTable(name: "Car", fields: fields, rows: [[.int32(7), .string("Seat"), .int32(1)]])
        let seat = second.rows[0].id
        try second.update(seat) { try $0.set("price", to: 2) }
        let gone = try second.apply(CompactTable(name: "Car", fields: fields, deleted: [[.int32(7)]]))
        #expect(gone.keptLocalChanges == [seat])
        #expect(second[seat]?.state == .modified)

        // A delta without a field the table has means the model changed: refused, table untouched.
        let narrower = CompactTable(name: "Car", fields: [fields[0], fields[1]], rows: [[.int32(1), .string("X")]])
        #expect(throws: DataTableError.self) { try table.apply(narrower) }
        #expect(table[ids[0]]?["make"] == .string("Audi"))
    }
}
