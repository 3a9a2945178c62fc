import Foundation
import HTTPTypes
import HummingbirdTesting
import StrataCore
import Testing

/// `strata serve` processes on a ``ReplicatedPostgres``, the first of which creates the demo
/// services; helpers the standby tests share.
struct StandbyServers {
    var servers: [StrataProcess] = []
    let directory: String
    /// `Basic` credentials of the demo's `editor` account (its password is announced once, by the first server).
    var editor = ""

    init() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-standby-servers-\(UUID().uuidString.prefix(8))").path
    }

    static let environment: [String: String?] = ["STRATA_KEY_SECRET": "standby-test-secret-5d1c8e0b94a27f63"]

    /// Starts a server on `database` reading from `replicas`, with `extra` options; the first one
    /// started creates the demo.
    mutating func start(database: String, replicas: [String], extra: [String] = []) async throws -> StrataProcess {
        let index = servers.count
        var arguments = ["serve", "--data", directory + "/server\(index)", "--database", database, "--log-level", "error",
                         "--metrics-access", "anonymous", "--database-connections", "4"] + extra
        arguments += replicas.flatMap { ["--read-replica", $0] }
        if index == 0 { arguments.append("--demo") }
        let server = try await StrataProcess.start(try StrataProcess.executable(), arguments: arguments, environment: Self.environment)
        servers.append(server)
        if index == 0 {
            let log = (try? String(contentsOfFile: server.log, encoding: .utf8)) ?? ""
            let password = try #require(log.firstMatch(of: /user "editor", password "([^"]+)"/)?.1, "the demo's editor password in \(log)")
            editor = "Basic " + Data("editor:\(password)".utf8).base64EncodedString()
        }
        return server
    }

    func stopAll() {
        for server in servers { server.kill() }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A server's `/metrics` line for `name` with the label `standby="127.0.0.1:port"`, as a number.
    static func metric(_ server: StrataProcess, _ name: String, standbyPort: Int) async throws -> Double? {
        let text = try await LoopbackHTTP.send(port: server.port, .get, "/metrics").text
        let prefix = "\(name){standby=\"127.0.0.1:\(standbyPort)\"} "
        return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Double($0.dropFirst(prefix.count)) }
    }

    /// Waits up to `limit` for `condition`; answers whether it held.
    static func eventually(within limit: Duration = .seconds(15), _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return try await condition()
    }

    /// Posts a person through `port`; answers the status, its key and the response's position header.
    func postPerson(port: Int, firstName: String, lastName: String, position: String? = nil) async throws
        -> (status: Int, id: Int?, position: String?, response: TestClient.Response) {
        var headers: HTTPFields = [.contentType: "application/json", .authorization: editor]
        if let position { headers[HTTPField.Name(ReadPosition.headerName)!] = position }
        let body = #"{"firstName":"\#(firstName)","lastName":"\#(lastName)"}"#
        let response = try await LoopbackHTTP.send(port: port, .post, "/cardealer/Person", headers: headers, body: Array(body.utf8))
        let id = (try? JSONValue.parse(Array(response.text.utf8)))?["d"]?["personID"]?.intValue
        return (Int(response.status.code), id, response.headers[HTTPField.Name(ReadPosition.headerName)!], response)
    }
}
