import Crypto
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

/// The proof that servers are interchangeable: three `strata serve` processes on one PostgreSQL
/// database with separate data directories, nginx round-robin in front, and everything a client
/// does through the balancer works whichever server answers.
@Suite("Scale-out: three servers behind nginx", .serialized)
struct ScaleOutTests {
    static let administrator = AdministratorTestClient.authorization

    @Test("A token, a 64 MiB blob, grants and throttling are the same on every server; kill -9 under writes loses no acknowledged write")
    func interchangeable() async throws {
        try await ScaleOutCluster.with { cluster in
            try await Self.tokenEverywhere(cluster)
            try await Self.blobEverywhere(cluster)
            try await Self.grantsEverywhere(cluster)
            try await Self.rotationEverywhere(cluster)
            try await Self.throttledEverywhere(cluster)
            try await Self.killUnderWrites(&cluster)
        }
    }

    /// Signed in through the balancer, the token works on every server.
    static func tokenEverywhere(_ cluster: ScaleOutCluster) async throws {
        let signIn = try await LoopbackHTTP.signIn(port: cluster.balancer.port, TestAccounts.tester, TestAccounts.testerPassword)
        let token = try #require(signIn.token, "sign-in through the balancer answered \(signIn.status)")
        for server in cluster.servers {
            let car = try await LoopbackHTTP.json(port: server.port, .get, "/cardealer/Car(1)", bearer: token)
            #expect(car.status == .ok, "server on \(server.port): \(car.text.prefix(300))")
        }
    }

    /// Uploaded through one server, read whole and by range from the others.
    static func blobEverywhere(_ cluster: ScaleOutCluster) async throws {
        let size = 64 << 20
        let (first, others) = (cluster.servers[0], cluster.servers.dropFirst())
        let created = try await LoopbackHTTP.json(port: first.port, .put, "/blobs/shared", basic: administrator)
        #expect(created.status == .created, "\(created.text)")
        let upload = try await RawUpload.put(port: first.port, path: "/blobs/shared/big.bin", headers: ["Authorization": administrator],
                                             size: size)
        #expect(upload.status == 201, "\(upload.text.prefix(300))")

        var expected = SHA256()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        for start in stride(from: 0, to: size, by: chunk.count) {
            for i in 0..<chunk.count { chunk[i] = RawUpload.byte(at: start + i) }
            expected.update(data: chunk)
        }
        let digest = expected.finalize()
        let ranges: [(header: String, first: Int, count: Int)] = [
            ("bytes=0-99", 0, 100), ("bytes=33554000-33556000", 33_554_000, 2001), ("bytes=-4096", size - 4096, 4096),
        ]
        for server in others {
            // Read as it streams (a buffering client would time out on 64 MiB in a debug build).
            let whole = try await RawHTTP.get(port: server.port, path: "/blobs/shared/big.bin", headers: ["Authorization": administrator])
            #expect(whole.status == 200, "server on \(server.port): \(whole.status)")
            #expect(whole.bytes == size)
            #expect(whole.digest == digest, "server on \(server.port) served other bytes")
            for range in ranges {
                let part = try await LoopbackHTTP.send(port: server.port, .get, "/blobs/shared/big.bin",
                                                       headers: [.authorization: administrator, .range: range.header])
                #expect(part.status == .partialContent, "\(range.header) on \(server.port): \(part.status)")
                let bytes = Array((part.body ?? ByteBuffer()).readableBytesView)
                let same = bytes == (range.first..<(range.first + range.count)).map(RawUpload.byte(at:))
                #expect(same, "\(range.header) on \(server.port): other bytes (\(bytes.count))")
            }
        }
    }

    /// A grant given and taken through one server applies on the others at their next request:
    /// pushed by `NOTIFY`, which reaches them within milliseconds of the commit. While they listen,
    /// their caches would otherwise hold the old grants for a minute, so an answer within twenty
    /// seconds is the push's (the push takes milliseconds; twenty leaves room for a loaded machine
    /// and is still a third of what a cache would take).
    static func grantsEverywhere(_ cluster: ScaleOutCluster) async throws {
        let first = cluster.servers[0].port
        let user = #"{"username":"scaler","password":"scale-out-password-1","roles":["scaler"]}"#
        #expect(try await LoopbackHTTP.json(port: first, .post, "/admin/users", basic: administrator, user).status == .created)
        let token = try #require(try await LoopbackHTTP.signIn(port: cluster.balancer.port, "scaler", "scale-out-password-1").token)
        func statuses() async throws -> [Int] {
            var statuses: [Int] = []
            for server in cluster.servers.dropFirst() {
                statuses.append(Int(try await LoopbackHTTP.json(port: server.port, .get, "/hockey/Teams?$top=1", bearer: token).status.code))
            }
            return statuses
        }
        /// The others' answers once they are `expected`, or the last ones after twenty seconds.
        func settled(_ expected: [Int]) async throws -> [Int] {
            let deadline = ContinuousClock.now + .seconds(20)
            var last = try await statuses()
            while last != expected && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
                last = try await statuses()
            }
            return last
        }
        #expect(try await statuses() == [403, 403])
        let grant = #"{"role":"scaler","service":"hockey","table":"Teams","actions":["read"]}"#
        let granted = try await LoopbackHTTP.json(port: first, .post, "/admin/grants", basic: administrator, grant)
        #expect(granted.status == .noContent, "\(granted.text)")
        #expect(try await settled([200, 200]) == [200, 200], "a grant through one server applies on the others")
        let revoked = try await LoopbackHTTP.json(port: first, .delete, "/admin/grants?role=scaler&service=hockey&table=Teams&actions=read",
                                                  basic: administrator)
        #expect(revoked.status == .ok, "\(revoked.text)")
        #expect(try await settled([403, 403]) == [403, 403], "a revoked grant stops applying on the others")
    }

    /// A signing key rotated through one server is the key the others sign with from its
    /// notification on, and their JWKS documents publish it.
    static func rotationEverywhere(_ cluster: ScaleOutCluster) async throws {
        let rotated = try await LoopbackHTTP.json(port: cluster.servers[0].port, .post, "/admin/keys/rotate", basic: administrator,
                                                  #"{"algorithm":"ES256"}"#)
        #expect(rotated.status == .created, "\(rotated.text)")
        let answer = try JSONValue.parse(Array(rotated.text.utf8))
        let kid = try #require(answer["kid"]?.stringValue ?? answer["keys"]?[0]?["kid"]?.stringValue, "\(rotated.text)")
        func signingKid(_ port: Int) async throws -> String? {
            guard let token = try await LoopbackHTTP.signIn(port: port, TestAccounts.tester, TestAccounts.testerPassword).token,
                  let header = token.split(separator: ".").first else { return nil }
            var base64 = header.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            return Data(base64Encoded: base64).flatMap { try? JSONValue.parse(Array($0)) }?["kid"]?.stringValue
        }
        for server in cluster.servers.dropFirst() {
            let deadline = ContinuousClock.now + .seconds(20)
            var signing = try await signingKid(server.port)
            while signing != kid && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
                signing = try await signingKid(server.port)
            }
            #expect(signing == kid, "server on \(server.port) signs with \(signing ?? "nothing"), not the rotated \(kid)")
            let jwks = try await LoopbackHTTP.json(port: server.port, .get, "/.well-known/jwks.json")
            #expect(jwks.status == .ok && jwks.text.contains(kid), "\(jwks.text)")
        }
    }

    /// A brute force through the balancer, spread over the servers, is stopped at the count one
    /// server stops it at (`maxFailuresPerAccount` wrong passwords, then 429).
    static func throttledEverywhere(_ cluster: ScaleOutCluster) async throws {
        let limit = AuthSettings().maxFailuresPerAccount
        var statuses: [Int] = []
        for attempt in 0..<(limit + 3) {
            statuses.append(try await LoopbackHTTP.signIn(port: cluster.balancer.port, "scaler", "wrong-\(attempt)").status)
        }
        #expect(!statuses.prefix(limit).contains(429) && statuses.dropFirst(limit).allSatisfy { $0 == 429 },
                "wrong passwords through three servers: \(statuses)")
    }

    /// Writers post through the balancer while one server is killed; every 201 is there afterwards,
    /// nothing was written twice, and the only failures are the requests the killed server had.
    static func killUnderWrites(_ cluster: inout ScaleOutCluster) async throws {
        let port = cluster.balancer.port
        let writers = 4, perWriter = 50
        let acknowledged = NIOLockedValueBox<[String: String]>([:])
        let failures = NIOLockedValueBox<[Int]>([])
        let victim = cluster.servers[1]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for index in 0..<perWriter {
                        let name = "w\(writer)-\(index)"
                        let body = #"{"firstName":"\#(name)","lastName":"ScaleOutKill"}"#
                        let response = try await LoopbackHTTP.json(port: port, .post, "/cardealer/Person", basic: administrator, body)
                        if response.status == .created, let location = response.headers[.location] {
                            acknowledged.withLockedValue { $0[name] = location }
                        } else {
                            failures.withLockedValue { $0.append(Int(response.status.code)) }
                        }
                    }
                }
            }
            group.addTask {
                // Killed once a quarter of the writes are acknowledged; if they never are (every
                // write refused), the test must still end: the kill comes after two minutes at most
                // and the counts below say what happened.
                let deadline = ContinuousClock.now + .seconds(120)
                while acknowledged.withLockedValue({ $0.count }) < writers * perWriter / 4, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(5))
                }
                victim.kill()
            }
            try await group.waitForAll()
        }
        cluster.servers.remove(at: 1)

        let failed = failures.withLockedValue { $0 }
        let written = acknowledged.withLockedValue { $0 }
        #expect(failed.count <= writers, "only requests in flight on the killed server may fail: \(failed)")
        #expect(failed.allSatisfy { $0 == 502 }, "failures are the balancer's 502 for the killed server: \(failed)")
        #expect(written.count + failed.count == writers * perWriter)
        let rows = try await LoopbackHTTP.json(
            port: port, .get, "/cardealer/Person?$filter=lastName%20eq%20'ScaleOutKill'&$select=firstName", basic: administrator)
        let names = (try JSONValue.parse(Array(rows.text.utf8)))["d"]?["results"]?.arrayValue?.compactMap { $0["firstName"]?.stringValue } ?? []
        #expect(Set(written.keys).isSubset(of: Set(names)), "acknowledged writes missing: \(Set(written.keys).subtracting(names).sorted())")
        #expect(names.count == Set(names).count, "a write was applied twice")
        #expect(names.count <= written.count + failed.count)
    }
}
