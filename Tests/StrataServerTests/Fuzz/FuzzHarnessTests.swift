import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StrataCore
import StrataDemo
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// The fuzz harness: generated `$filter` (V2's and V4's), `$sql`, JSON bodies and `$batch` requests against a
/// server on each database, for `STRATA_FUZZ_SECONDS` each (a few seconds by default; set it for a
/// long run). Any 5xx, any request that hangs, any 4xx without an OData error body fails the test,
/// naming the seed and the request.
@Suite("Fuzz harness")
struct FuzzHarnessTests {
    static func server(_ backend: Backend, _ body: @Sendable @escaping (any TestClientProtocol) async throws -> Void) async throws {
        try await withServer(backend, configure: { configuration in
            // Generated queries can be expensive; the limits answer them, as in production.
            configuration.statementTimeout = .seconds(5)
            configuration.maxQueriesPerCaller = 64
            // Every request here comes from one address (and carries the tests' Basic credentials):
            // the generated sign-ins would soon block that address, and with it the rest of the run.
            configuration.auth.maxFailuresPerAddress = 1_000_000
            configuration.auth.maxFailuresPerAccount = 1_000_000
        }) { client in try await body(client) }
    }

    @Test("$filter, $orderby, $top, $expand: no 5xx, no hang", arguments: Backend.allCases)
    func filters(_ backend: Backend) async throws {
        try await Self.server(backend) { client in
            var generator = FuzzFilterGenerator()
            let report = try await FuzzRun.run("filter \(backend)", seed: FuzzRun.seed(default: 0xF117_E4), client: client) { generator.request(&$0) }
            #expect(report.statuses[200, default: 0] > 0 && report.statuses[400, default: 0] > 0, "the corpus reaches both outcomes")
        }
    }

    @Test("OData V4 queries ($filter with V4's syntax, lambdas, in, $expand options, $compute, $search): no 5xx, no hang, errors in V4's shape",
          arguments: Backend.allCases)
    func filtersV4(_ backend: Backend) async throws {
        try await Self.server(backend) { client in
            var generator = FuzzFilterV4Generator()
            let report = try await FuzzRun.run("filter v4 \(backend)", seed: FuzzRun.seed(default: 0x0D474), client: client, check: { _, response in
                guard response.status.code >= 400 else { return nil }
                // V4's error: {"error":{"code":"…","message":"…"}}, the message a string (V2's is an object).
                let body = try? JSONValue.parse(Array(response.body.readableBytesView))
                return body?["error"]?["message"]?.stringValue?.isEmpty == false ? nil : "not a V4 error body"
            }) { generator.request(&$0) }
            #expect(report.statuses[200, default: 0] > 0 && report.statuses[400, default: 0] > 0, "the corpus reaches both outcomes")
        }
    }

    @Test("$sql: no 5xx, no hang", arguments: Backend.allCases)
    func sql(_ backend: Backend) async throws {
        try await Self.server(backend) { client in
            let generator = FuzzSQLGenerator()
            let report = try await FuzzRun.run("sql \(backend)", seed: FuzzRun.seed(default: 0x5E1EC7), client: client) { generator.request(&$0) }
            #expect(report.statuses[200, default: 0] > 0 && report.statuses[400, default: 0] > 0, "the corpus reaches both outcomes")
        }
    }

    @Test("JSON bodies of writes, $changes, $sql and /auth/token: no 5xx, no hang", arguments: Backend.allCases)
    func jsonBodies(_ backend: Backend) async throws {
        try await Self.server(backend) { client in
            let generator = FuzzJSONGenerator()
            let report = try await FuzzRun.run("json \(backend)", seed: FuzzRun.seed(default: 0x150B0D), client: client) { generator.request(&$0) }
            #expect(report.statuses.keys.contains { $0 < 300 } && report.statuses[400, default: 0] > 0, "the corpus reaches both outcomes")
        }
    }

    @Test("A closed service, probed anonymously on every path with real and made-up names: 401 and not one of its names", arguments: Backend.allCases)
    func closedService(_ backend: Backend) async throws {
        try await Self.server(backend) { signedIn in
            // Without the tests' administrator credentials.
            let client = try #require((signedIn as? AdministratorTestClient)?.base)
            let generator = FuzzClosedServiceGenerator()
            let report = try await FuzzRun.run("closed service \(backend)", seed: FuzzRun.seed(default: 0xC105ED), client: client, check: { request, response in
                let body = String(decoding: response.body.readableBytesView, as: UTF8.self)
                let request = request.summary
                let leaked = FuzzClosedServiceGenerator.names.filter { body.contains($0) && !request.contains($0) }
                if !leaked.isEmpty { return "\(response.status.code) names \(leaked): \(body.prefix(200))" }
                return response.status == .unauthorized ? nil : "\(response.status.code), not 401: \(body.prefix(200))"
            }) { generator.request(&$0) }
            #expect(report.statuses == [401: report.requests], "\(report)")
        }
    }

    @Test("Deep and wide $expand: no 5xx, and no answer larger than the expansion limit allows", arguments: Backend.allCases)
    func deepExpand(_ backend: Backend) async throws {
        // A small limit, so that the generated expansions pass it all the time.
        let limit = 300, pageSize = 200
        try await withServer(backend, pageSize: pageSize, configure: { configuration in
            configuration.maxExpandedEntities = limit
            configuration.maxQueriesPerCaller = 64
        }) { client in
            let generator = FuzzExpandGenerator()
            // An entity of the sample is at most a few hundred bytes of JSON, with its __metadata and
            // deferred links: an answer holds at most a page of entities and `limit` more inline.
            let bound = (limit + pageSize) * 2_000
            let report = try await FuzzRun.run("expand \(backend)", seed: FuzzRun.seed(default: 0xDEE9), client: client, check: { _, response in
                response.body.readableBytes <= bound ? nil : "\(response.body.readableBytes) bytes, over \(bound)"
            }) { generator.request(&$0) }
            #expect(report.statuses[200, default: 0] > 0 && report.statuses[400, default: 0] > 0, "the corpus reaches both outcomes: \(report)")
        }
    }

    @Test("Truncated and lying bodies over real sockets: 4xx with an OData error, never a 5xx, nothing written", arguments: Backend.allCases)
    func lyingBodies(_ backend: Backend) async throws {
        try await withLiveServer(backend, configure: { configuration in
            configuration.maxQueriesPerCaller = 64
            configuration.auth.maxFailuresPerAddress = 1_000_000
        }) { port in
            let counts = "GET /cardealer/Person/$count HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            let before = try await RawSocket.exchange(port: port, counts)
            let seed = FuzzRun.seed(default: 0x1E7B0D)
            var random = SplitMix64(seed: seed)
            let json = FuzzJSONGenerator(), sql = FuzzSQLGenerator()
            var statuses: [Int: Int] = [:], requests = 0, failures: [String] = []
            let end = ContinuousClock.now + FuzzRun.duration
            while (ContinuousClock.now < end || requests < FuzzRun.minimumRequests), failures.count < 5 {
                var request = random.chance(50) ? json.request(&random) : sql.request(&random)
                if request.uri.hasPrefix("/auth/") { request = sql.request(&random) }
                let body = request.body ?? []
                var head = "\(request.method.rawValue) \(request.uri) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                if random.chance(50) { head += "Authorization: \(AdministratorTestClient.authorization)\r\n" }
                var raw: [UInt8]
                let lie = random.below(4)
                switch lie {
                case 0: // More announced than sent, then the end of the stream.
                    let sent = body.isEmpty ? 0 : random.below(body.count)
                    raw = Array((head + "Content-Length: \(body.count + 1 + random.below(100_000))\r\n\r\n").utf8) + body.prefix(sent)
                case 1: // Less announced than sent: the rest is read as the next request.
                    let announced = body.isEmpty ? 0 : random.below(body.count)
                    raw = Array((head + "Content-Length: \(announced)\r\n\r\n").utf8) + body
                case 2: // A chunk size that is no size, or past 2^64.
                    let size = random.pick(["FFFFFFFFFFFFFFFF", "FFFFFFFFFFFFFFFFF", "-1", "zz", "0x10", "1;x=1", " 5", "\(String(body.count, radix: 16))"])
                    raw = Array((head + "Transfer-Encoding: chunked\r\n\r\n\(size)\r\n").utf8) + body.prefix(random.below(body.count + 1))
                default: // Chunks cut in the middle.
                    let size = body.count + 1 + random.below(1000)
                    raw = Array((head + "Transfer-Encoding: chunked\r\n\r\n\(String(size, radix: 16))\r\n").utf8) + body
                }
                let answer = try await RawSocket.exchange(port: port, raw, halfClose: true, timeout: FuzzRun.hangLimit)
                requests += 1
                let codes = answer.components(separatedBy: "HTTP/1.1 ").dropFirst().compactMap { Int($0.prefix(3)) }
                for code in codes { statuses[code, default: 0] += 1 }
                let summary = "lie \(lie): \(String(decoding: raw.prefix(300), as: UTF8.self))"
                if codes.isEmpty {
                    failures.append("no answer ← \(summary)")
                } else if codes.contains(where: { $0 >= 500 }) {
                    failures.append("\(answer.prefix(300)) ← \(summary)")
                } else if codes.contains(where: { $0 >= 400 }), !answer.contains(#"{"error":"#) {
                    failures.append("4xx without an OData error body: \(answer.prefix(300)) ← \(summary)")
                } else if codes.allSatisfy({ $0 >= 400 }) {
                    let now = try await RawSocket.exchange(port: port, counts)
                    if now.components(separatedBy: "\r\n\r\n").last != before.components(separatedBy: "\r\n\r\n").last {
                        failures.append("refused with \(codes), yet the number of people changed: \(now) vs \(before) \(answer.prefix(600)) ← \(String(decoding: raw, as: UTF8.self).prefix(2000))")
                        break
                    }
                }
            }
            print("Fuzz lying bodies \(backend) (seed \(seed)): \(requests) requests, statuses \(statuses.sorted { $0.key < $1.key })")
            for failure in failures { Issue.record("fuzz lying bodies \(backend), seed \(seed): \(failure)") }
            #expect(try await RawSocket.exchange(port: port, counts).components(separatedBy: "\r\n\r\n").last
                    == before.components(separatedBy: "\r\n\r\n").last, "a cut or lying body wrote something")
        }
    }

    @Test("$batch: no 5xx, no hang", arguments: Backend.allCases)
    func batches(_ backend: Backend) async throws {
        try await Self.server(backend) { client in
            let generator = FuzzBatchGenerator()
            let report = try await FuzzRun.run("batch \(backend)", seed: FuzzRun.seed(default: 0xBA7C4), client: client) { generator.request(&$0) }
            #expect(report.statuses[202, default: 0] > 0 && report.statuses[400, default: 0] > 0, "the corpus reaches both outcomes")
        }
    }
}
