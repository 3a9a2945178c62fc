import Foundation
import HTTPTypes
import HummingbirdTesting
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

/// Three `strata serve` processes on one PostgreSQL database, each with a data directory of its
/// own (as three machines would have), behind nginx: the set-up docs/DEPLOYMENT.md describes.
struct ScaleOutCluster {
    var servers: [StrataProcess]
    var balancer: NginxBalancer
    var databaseURL: String
    var directories: [String]

    /// The secret every server seals its signing keys under (`STRATA_KEY_SECRET`): with it, the
    /// servers need nothing on their disks.
    static let keySecret = "scale-out-test-secret-7f3a9c2e51d84b06"

    static func arguments(data: String, database: String) -> [String] {
        ["serve", "--data", data, "--database", database, "--log-level", "error"]
    }

    static let environment: [String: String?] = ["STRATA_KEY_SECRET": keySecret]

    /// Runs `body` with three servers on a fresh copy of the demo database and nginx in front.
    static func with(_ body: (inout ScaleOutCluster) async throws -> Void) async throws {
        try await PostgresSlots.run(.postgres) {
            let configuration = try await TestDatabases.shared.configuration(.postgres)
            guard case .postgres(let location)? = configuration.database else {
                Issue.record("no PostgreSQL test database")
                return
            }
            let url = "postgres://\(location.username)@\(location.host):\(location.port)/\(location.database ?? "")"
            let directories = (1...3).map { configuration.dataDirectory + "-server\($0)" }
            defer {
                try? FileManager.default.removeItem(atPath: configuration.dataDirectory)
                for directory in directories { try? FileManager.default.removeItem(atPath: directory) }
            }
            let binary = try StrataProcess.executable()
            var servers: [StrataProcess] = []
            do {
                for directory in directories {
                    servers.append(try await StrataProcess.start(binary, arguments: arguments(data: directory, database: url),
                                                                 environment: environment))
                }
            } catch {
                for server in servers { server.kill() }
                throw error
            }
            let balancer: NginxBalancer
            do {
                balancer = try await NginxBalancer.start(upstreams: servers.map(\.port))
            } catch {
                for server in servers { server.kill() }
                throw error
            }
            var cluster = ScaleOutCluster(servers: servers, balancer: balancer, databaseURL: url, directories: directories)
            defer {
                cluster.balancer.stop()
                for server in cluster.servers { server.kill() }
            }
            try await body(&cluster)
        }
    }
}

/// One HTTP exchange with a server or the balancer on loopback, on a connection of its own.
enum LoopbackHTTP {
    static func send(port: Int, _ method: HTTPRequest.Method, _ uri: String, headers: HTTPFields = [:],
                     body: [UInt8]? = nil) async throws -> TestClient.Response {
        try await TestClient.withClient(host: "127.0.0.1", port: port) { client in
            try await client.execute(TestClient.Request(uri, method: method, authority: "127.0.0.1:\(port)", headers: headers,
                                                        body: body.map { ByteBuffer(bytes: $0) }))
        }
    }

    static func json(port: Int, _ method: HTTPRequest.Method, _ uri: String, bearer: String? = nil,
                     basic: String? = nil, _ body: String? = nil) async throws -> TestClient.Response {
        var headers: HTTPFields = [:]
        if body != nil { headers[.contentType] = "application/json" }
        if let bearer { headers[.authorization] = "Bearer \(bearer)" }
        if let basic { headers[.authorization] = basic }
        return try await send(port: port, method, uri, headers: headers, body: body.map { Array($0.utf8) })
    }

    /// Signs in with a password; the status and, on success, the access token.
    static func signIn(port: Int, _ username: String, _ password: String) async throws -> (status: Int, token: String?) {
        let body = #"{"username":"\#(username)","password":"\#(password)"}"#
        let response = try await json(port: port, .post, "/auth/token", body)
        let token = (try? JSONValue.parse(Array(response.text.utf8)))?["access_token"]?.stringValue
        return (Int(response.status.code), token)
    }
}
