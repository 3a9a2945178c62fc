import Benchmark
import Foundation
import Hummingbird
import HummingbirdTesting
import StrataClient
import StrataCore
import StrataDemo
import StrataServer

// Micro-benchmarks of Strata's hot paths. Names are stable: benchmarks/run reads them back.
//
// - "Filter parse": QueryOptions(parsing:) of a typical query string.
// - "Request GET Person?$filter": the same query string as a request through the whole responder in process
//   (parse, bind, plan, SQLite, serialization). Binding alone is no longer measured apart: QueryBinder is
//   `package` (issue 37), which another package, such as this one, cannot call.
// - "Serialize 100 rows": 100 Person rows written as OData V2 verbose JSON with the public pieces the
//   server's EntitySerializer uses (JSONWriter, ODataJSON.write).
// - "Client decode 1000 rows": a 1,000-row V2 page parsed (JSONValue.parse) and every property decoded as
//   its EDM type (ODataJSON.decode): the client's side of a page. 5,000 values per iteration.
// - "Client Codable decode 1000 rows": the same page decoded into `[Person]` (a Codable struct) with
//   StrataClient's ODataDecoder, as an app does. 5,000 values per iteration; the target's number.
// - "Client DataTable decode 1000 rows": the same 1,000 rows as a `$tables` response (the compact
//   form: field definitions, rows as arrays) decoded into a StrataClient `DataTable`. 5,000 values.
// - "Request GET Person(1)" / "Request GET Person?$top=100": one request through Strata's whole
//   responder in process (router, endpoint, SQLite, serialization) on the demo data, without sockets;
//   mallocCountTotal per iteration is the allocations per request.

let rowsPerSerialization = 100
let rowsPerDecode = 1000
let propertiesPerRow = 5

let benchmarks: @Sendable () -> Void = {
    let cpuAndMallocs: [BenchmarkMetric] = [.wallClock, .cpuTotal, .throughput, .mallocCountTotal, .instructions]
    Benchmark.defaultConfiguration = .init(
        metrics: cpuAndMallocs,
        warmupIterations: 10,
        scalingFactor: .one,
        maxDuration: .seconds(2),
        maxIterations: 100_000)

    let query = "$filter=lastName ge 'M' and year(createDate) ge 2010 and substringof('a', firstName)&$orderby=lastName,firstName desc&$top=100&$select=personID,firstName,lastName"

    Benchmark("Filter parse") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try QueryOptions(parsing: query))
        }
    }

    Benchmark("Serialize 100 rows") { benchmark in
        let rows = CarDealerModel.personRows(rowsPerSerialization)
        for _ in benchmark.scaledIterations {
            blackHole(CarDealerModel.writePage(rows))
        }
    }

    Benchmark("Client decode 1000 rows") { benchmark in
        let page = CarDealerModel.writePage(CarDealerModel.personRows(rowsPerDecode))
        let types = CarDealerModel.person.properties.map { ($0.name, $0.type) }
        for _ in benchmark.scaledIterations {
            let document = try JSONValue.parse(page)
            guard let results = document["d"]?["results"]?.arrayValue else { fatalError("no results in the page") }
            var values: [[ODataValue]] = []
            values.reserveCapacity(results.count)
            for entity in results {
                var row: [ODataValue] = []
                row.reserveCapacity(types.count)
                for (name, type) in types {
                    row.append(try ODataJSON.decode(entity[name] ?? .null, as: type))
                }
                values.append(row)
            }
            blackHole(values)
        }
    }

    Benchmark("Client Codable decode 1000 rows") { benchmark in
        let page = Data(CarDealerModel.writePage(CarDealerModel.personRows(rowsPerDecode)))
        let decoder = ODataDecoder()
        for _ in benchmark.scaledIterations {
            let people = try decoder.decode([DecodedPerson].self, from: page)
            guard people.count == rowsPerDecode else { fatalError("decoded \(people.count) people") }
            blackHole(people)
        }
    }

    Benchmark("Client DataTable decode 1000 rows") { benchmark in
        let fields = CarDealerModel.person.properties.map {
            DataTableField(name: $0.name, type: $0.type, size: $0.maxLength, required: !$0.isNullable,
                           key: $0.name == "personID", readOnly: $0.isServerGenerated, serverGenerated: $0.isServerGenerated)
        }
        let table = CompactTable(name: "Person", fields: fields, rows: CarDealerModel.personRows(rowsPerDecode))
        let document = CompactTable.documentBytes([table])
        for _ in benchmark.scaledIterations {
            let tables = try CompactTable.decode(document).map(DataTable.init)
            guard tables.first?.rows.count == rowsPerDecode else { fatalError("decoded \(tables.first?.rows.count ?? 0) rows") }
            blackHole(tables)
        }
    }

    Benchmark("Request GET Person(1)",
              configuration: .init(metrics: cpuAndMallocs, warmupIterations: 50, maxDuration: .seconds(3)),
              closure: { benchmark in
                  let client = try InProcessServer.shared.client()
                  for _ in benchmark.scaledIterations {
                      let response = try await client.execute(uri: "/cardealer/Person(1)", method: .get, headers: [:], body: nil)
                      guard response.status == .ok else { fatalError("GET Person(1) answered \(response.status)") }
                      blackHole(response.body.readableBytes)
                  }
              },
              setup: { try await InProcessServer.shared.start() })

    Benchmark("Request GET Person?$top=100",
              configuration: .init(metrics: cpuAndMallocs, warmupIterations: 20, maxDuration: .seconds(3)),
              closure: { benchmark in
                  let client = try InProcessServer.shared.client()
                  for _ in benchmark.scaledIterations {
                      let response = try await client.execute(uri: "/cardealer/Person?$top=100", method: .get, headers: [:], body: nil)
                      guard response.status == .ok else { fatalError("GET Person?$top=100 answered \(response.status)") }
                      blackHole(response.body.readableBytes)
                  }
              },
              setup: { try await InProcessServer.shared.start() })

    Benchmark("Request GET Person?$filter",
              configuration: .init(metrics: cpuAndMallocs, warmupIterations: 20, maxDuration: .seconds(3)),
              closure: { benchmark in
                  let client = try InProcessServer.shared.client()
                  let uri = "/cardealer/Person?" + query.replacingOccurrences(of: " ", with: "%20")
                  for _ in benchmark.scaledIterations {
                      let response = try await client.execute(uri: uri, method: .get, headers: [:], body: nil)
                      guard response.status == .ok else { fatalError("GET Person?$filter answered \(response.status)") }
                      blackHole(response.body.readableBytes)
                  }
              },
              setup: { try await InProcessServer.shared.start() })
}

/// A client's model of `Person`, as in StrataClient's Getting Started.
struct DecodedPerson: Decodable, Sendable {
    var personID: Int
    var firstName: String
    var lastName: String
    var ssn: String?
    var createDate: Date
}

/// The CarDealer `Person` type as the server's catalog reader builds it, and rows like the demo's.
enum CarDealerModel {
    static let namespace = "edmexampleModel"
    static let person = EntityType(
        name: "Person", namespace: namespace,
        properties: [
            EntityProperty(name: "personID", type: .int32, isNullable: false, isServerGenerated: true),
            EntityProperty(name: "firstName", type: .string, isNullable: false, maxLength: 50),
            EntityProperty(name: "lastName", type: .string, isNullable: false, maxLength: 50),
            EntityProperty(name: "ssn", type: .string, maxLength: 11),
            EntityProperty(name: "createDate", type: .dateTime, isNullable: false, hasDefault: true),
        ],
        keyNames: ["personID"])
    static let model = ServiceModel(
        serviceName: "cardealer", namespace: namespace, containerName: "cardealerEntities",
        entityTypes: [person], entitySets: [EntitySet(name: "Person", entityTypeName: "Person")], associations: [])

    static let serviceRoot = "http://127.0.0.1:8080/cardealer/"
    static let memberNames: [[UInt8]] = person.properties.map { Array("\"\($0.name)\":".utf8) }

    static func personRows(_ count: Int) -> [[ODataValue]] {
        let first = ["James", "Mary", "Björn", "Zoë", "Hiroshi", "O'Brien"]
        let last = ["Smith", "Johnson", "García", "Müller", "Nguyen", "de la Cruz"]
        return (1...count).map { id in
            [.int32(Int32(id)), .string(first[id % first.count]), .string(last[id % last.count]),
             id % 10 == 0 ? .null : .string(String(100_000_000 + id * 7919 % 900_000_000)),
             .dateTime(ODataDateTime(millisecondsSince1970: 1_254_355_200_000 + Int64(id) * 1_000_003))]
        }
    }

    /// `{"d":{"results":[…]}}` with `__metadata` (uri, type) and a deferred `PersonCar`, as Strata writes it.
    static func writePage(_ rows: [[ODataValue]]) -> [UInt8] {
        var writer = JSONWriter(capacity: 64 * 1024)
        writer.beginObject()
        writer.key("d")
        writer.beginObject()
        writer.key("results")
        writer.beginArray()
        for row in rows {
            let uri = serviceRoot + "Person(" + String(row[0].integerValue ?? 0) + ")"
            writer.beginObject()
            writer.key("__metadata")
            writer.beginObject()
            writer.key("uri")
            writer.string(uri)
            writer.key("type")
            writer.string("edmexampleModel.Person")
            writer.endObject()
            for index in row.indices {
                writer.key(prepared: memberNames[index])
                ODataJSON.write(row[index], to: &writer)
            }
            writer.key("PersonCar")
            writer.beginObject()
            writer.key("__deferred")
            writer.beginObject()
            writer.key("uri")
            writer.string(uri + "/PersonCar")
            writer.endObject()
            writer.endObject()
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        writer.endObject()
        return writer.takeBytes()
    }
}

/// Strata's application on the demo data (SQLite in a temporary directory), driven through
/// HummingbirdTesting's in-process router client: the whole responder, no sockets.
final class InProcessServer: @unchecked Sendable {
    static let shared = InProcessServer()

    private let lock = NSLock()
    private var testClient: (any TestClientProtocol)?
    private var starting = false

    struct NotStarted: Error {}

    func client() throws -> any TestClientProtocol {
        lock.lock()
        defer { lock.unlock() }
        guard let testClient else { throw NotStarted() }
        return testClient
    }

    /// Starts the application once, in a task that lives as long as the process.
    func start() async throws {
        let shouldStart: Bool = lock.withLock {
            if starting { return false }
            starting = true
            return true
        }
        if shouldStart {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-micro-\(ProcessInfo.processInfo.processIdentifier)")
            try? FileManager.default.removeItem(at: directory)
            var configuration = StrataConfiguration(dataDirectory: directory.path)
            configuration.demo = true
            configuration.logLevel = .error
            let app = try await buildApplication(configuration)
            let (ready, readyContinuation) = AsyncStream.makeStream(of: Void.self)
            Task.detached {
                do {
                    try await app.test(.router) { client in
                        self.lock.withLock { self.testClient = client }
                        readyContinuation.yield()
                        // Keep the application (and its databases) open until the process ends.
                        while true { try await Task.sleep(for: .seconds(3600)) }
                    }
                } catch {
                    FileHandle.standardError.write(Data("in-process Strata failed: \(error)\n".utf8))
                    readyContinuation.finish()
                }
            }
            for await _ in ready { break }
        }
        while (try? client()) == nil {
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
