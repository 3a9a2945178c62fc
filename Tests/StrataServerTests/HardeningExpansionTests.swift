import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOConcurrencyHelpers
import NIOCore
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// One request may not make the server hold or send without bound (a probe's anonymous `$expand`
/// of 20 paths, 4–5 steps deep, over the CarDealer sample's shared entities answered 456 MB and
/// took the server to ~1 GB): `$expand` places at most `maxExpandedEntities` entities inline per
/// response and ends a page early with `__next` before passing it; `$sql` results and `$batch`
/// answers, which are built whole, stop at `maxBufferedResponse` bytes.
@Suite("Hardening: response amplification")
struct HardeningExpansionTests {
    /// 20 paths of 4 and 5 steps, back and forth between shared entities.
    static let attack = "/cardealer/PersonCarMaintenance?$expand="
        + ["Maintenance/PersonCarMaintenance/Maintenance/PersonCarMaintenance", "Maintenance/PersonCarMaintenance/PersonCar/Car",
           "Maintenance/PersonCarMaintenance/PersonCar/Car/PersonCar", "Maintenance/PersonCarMaintenance/PersonCar/Person/PersonCar",
           "Maintenance/PersonCarMaintenance/PersonCar/PersonCarMaintenance", "PersonCar/Car/PersonCar/Car",
           "PersonCar/Car/PersonCar/Car/PersonCar", "PersonCar/Car/PersonCar/Person", "PersonCar/Car/PersonCar/Person/PersonCar",
           "PersonCar/Car/PersonCar/PersonCarMaintenance/Maintenance", "PersonCar/Person/PersonCar/Car",
           "PersonCar/Person/PersonCar/Car/PersonCar", "PersonCar/Person/PersonCar/Person/PersonCar",
           "PersonCar/Person/PersonCar/PersonCarMaintenance", "PersonCar/PersonCarMaintenance/Maintenance/PersonCarMaintenance",
           "PersonCar/PersonCarMaintenance/Maintenance/PersonCarMaintenance/PersonCar", "PersonCar/PersonCarMaintenance/PersonCar/Car",
           "PersonCar/PersonCarMaintenance/PersonCar/Car/PersonCar", "PersonCar/PersonCarMaintenance/PersonCar/Person",
           "PersonCar/PersonCarMaintenance/PersonCar/PersonCarMaintenance/Maintenance"].joined(separator: ",")

    @Test("The deep $expand a probe sent: pages of bounded size with __next, and the server's memory grows less than 50 MB", arguments: Backend.allCases)
    func probe(_ backend: Backend) async throws {
        let configuration = try await TestDatabases.shared.configuration(backend)
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let server = try await StrataProcess.start(try StrataProcess.executable(), arguments: StrataProcess.serveArguments(configuration))
        defer { server.kill() }
        // Warm up: the first requests load code and allocate pools.
        _ = try await RawHTTP.get(port: server.port, path: "/cardealer/PersonCarMaintenance?$expand=PersonCar/Car&$top=50")
        let before = server.residentMemory
        let peak = NIOLockedValueBox(before)
        var path = Self.attack
        var pages = 0, largest = 0
        while pages < 4 {
            let page = try await RawHTTP.get(port: server.port, path: path) { _ in
                let now = server.residentMemory
                peak.withLockedValue { $0 = max($0, now) }
            }
            largest = max(largest, page.bytes)
            // A page whose first entity alone expands past the limit is refused, saying so.
            if page.status == 400 {
                #expect(page.tail.contains("collections of their own, which are paged."), "\(page.tail)")
                break
            }
            #expect(page.status == 200, "\(page.tail)")
            pages += 1
            // The page ends early: its last member is the link to the next one.
            guard let token = page.tail.range(of: "$skiptoken=").map({ page.tail[$0.upperBound...].prefix { $0 != "\"" } }) else { break }
            path = Self.attack + "&$skiptoken=" + token
        }
        peak.withLockedValue { $0 = max($0, server.residentMemory) }
        let growth = peak.withLockedValue { $0 } - before
        #expect(pages >= 1, "the first page was refused")
        // 20,000 entities of the sample are a few MB of JSON; the probe's answer was 456 MB.
        #expect(largest < 20_000_000, "a page of \(largest) bytes")
        #expect(growth < 50_000_000, "the server's memory grew \(growth / 1_000_000) MB")
        print("measured: \(backend) deep $expand, pages up to \(largest) bytes, server memory grew \(growth / 1_000_000) MB")
    }

    @Test("Pages end before the limit on inline entities and continue with __next: every parent once, in order, whole", arguments: Backend.allCases)
    func pagesWithinTheLimit(_ backend: Backend) async throws {
        // Each owner has one vehicle with two trips: 3 entities inline per owner, 30 at most per page.
        try await withServer(backend, demo: false, services: [FleetService.service(owners: 120)],
                             configure: { $0.maxExpandedEntities = 30 }) { client in
            var uri = "/fleet/Owner?$expand=Vehicle/Trip&$top=100"
            var owners: [Int64] = []
            var pages = 0
            while pages < 100 {
                let page = try await client.get(uri)
                #expect(page.status == .ok, "\(page.text.prefix(300))")
                pages += 1
                let results = page.json["d"]?["results"]?.arrayValue ?? []
                var inline = 0
                for owner in results {
                    if case .number(let id)? = owner["ownerID"] { owners.append(Int64(id) ?? -1) }
                    let vehicles = owner["Vehicle"]?["results"]?.arrayValue ?? []
                    #expect(vehicles.count == 1 && vehicles[0]["Trip"]?["results"]?.arrayValue?.count == 2, "\(owner)")
                    inline += vehicles.count + vehicles.reduce(0) { $0 + ($1["Trip"]?["results"]?.arrayValue?.count ?? 0) }
                }
                #expect(!results.isEmpty && inline <= 30, "page \(pages): \(results.count) owners, \(inline) inline")
                guard let next = page.json["d"]?["__next"]?.stringValue else { break }
                uri = next.replacingOccurrences(of: "http://localhost", with: "")
            }
            #expect(owners == Array(1...100), "\(owners)")
            #expect(pages >= 10)
            // Without the limit in the way, one page as before.
            let whole = try await client.get("/fleet/Owner?$expand=Vehicle/Trip&$top=9")
            #expect(whole.json["d"]?["results"]?.arrayValue?.count == 9 && whole.json["d"]?["__next"] == nil)
        }
    }

    @Test("An entity that alone expands past the limit, and an OData 1.0 client that cannot follow __next, get a 400 that says what to do", arguments: Backend.allCases)
    func refusals(_ backend: Backend) async throws {
        try await withServer(backend, configure: { $0.maxExpandedEntities = 5 }) { client in
            let single = try await client.get("/cardealer/Person(1)?$expand=PersonCar/Car/PersonCar/Person/PersonCar")
            #expect(single.status == .badRequest)
            #expect(single.odataError?.code == "ExpansionTooLarge" && single.odataError?.message.contains("more than 5") == true, "\(single.text)")
            let first = try await client.get("/cardealer/Car?$expand=PersonCar/Person/PersonCar/Car/PersonCar&$orderby=carID")
            #expect(first.status == .badRequest || first.json["d"]?["results"]?.arrayValue?.isEmpty == false, "\(first.text.prefix(300))")
            let old = try await client.get("/cardealer/PersonCarMaintenance?$expand=PersonCar/Car/PersonCar", headers: [HTTPField.Name("MaxDataServiceVersion")!: "1.0"])
            #expect(old.status == .badRequest)
            #expect(old.odataError?.message.contains("MaxDataServiceVersion: 2.0") == true, "\(old.text)")
            // Within the limit, as before.
            #expect(try await client.get("/cardealer/Person(1)?$expand=PersonCar").status == .ok)
        }
    }

    @Test("$sql results and $batch answers stop at the bound on responses built whole; a change set past it still applies and is answered", arguments: Backend.allCases)
    func bufferedResponses(_ backend: Backend) async throws {
        try await withServer(backend, demo: false, services: [FleetService.service(owners: 1000)],
                             configure: { $0.maxBufferedResponse = 64 * 1024 }) { client in
            let small = try await client.sql("SELECT ownerID, name FROM Owner WHERE ownerID <= 100", service: "fleet")
            #expect(small.status == .ok)
            let big = try await client.sql("SELECT name || name || name || name || name || name || name || name || name || name AS n FROM Owner", service: "fleet")
            #expect(big.status == .badRequest)
            #expect(big.odataError?.code == "ResultTooLarge" && big.odataError?.message.contains("LIMIT") == true, "\(big.text)")

            // SQLite generates an INTEGER PRIMARY KEY; PostgreSQL's plain integer key is the client's to send.
            let owner = backend == .sqlite ? #"{"name":"Past the bound"}"# : #"{"ownerID":5000,"name":"Past the bound"}"#
            let batch = BatchBody(items: Array(repeating: .query("Owner?$top=100"), count: 6)
                                  + [.changeSet([.init(method: "POST", url: "Owner", body: owner)]), .query("Owner(1)")])
            let answered = try await client.send(.post, "/fleet/$batch", headers: [.contentType: batch.contentType], body: batch.text)
            #expect(answered.status == .accepted)
            #expect(answered.body.readableBytes < 2 * 64 * 1024, "\(answered.body.readableBytes) bytes")
            let parts = try BatchAnswer(answered).parts
            #expect(parts.count == 8)
            let statuses = parts.map(\.status)
            #expect(statuses.prefix(6).contains(200) && statuses.prefix(6).contains(400), "\(statuses)")
            #expect(statuses[6] == 201, "the change set is applied and answered: \(statuses)")
            #expect(parts.first { $0.status == 400 }?.body.contains("ResponseTooLarge") == true)
            #expect(try await client.get("/fleet/Owner/$count").text == "1001")
        }
    }
}
