import Foundation
@testable import StrataCLI
import Testing

/// Which server a client command talks to when it names none: --server, $STRATA_SERVER, the
/// replica's own server, the server last signed in to, then http://127.0.0.1:8080.
@Suite("The server a command talks to")
struct DefaultServerTests {
    static func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-default-server-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test("The option wins, then STRATA_SERVER, then the replica's server, then the last sign-in, then the local default")
    func precedence() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = ["STRATA_CREDENTIALS": directory.appendingPathComponent("credentials").path]
        #expect(DefaultServer.text(option: nil, environment: environment) == "http://127.0.0.1:8080")
        DefaultServer.rememberSignIn(URL(string: "https://Data.Example.com:8443/")!, environment: environment)
        #expect(DefaultServer.text(option: nil, environment: environment) == "https://data.example.com:8443")
        #expect(DefaultServer.text(option: nil, remembered: "http://replica-host:8080", environment: environment) == "http://replica-host:8080")
        var withVariable = environment
        withVariable["STRATA_SERVER"] = "http://from-env:9000"
        #expect(DefaultServer.text(option: nil, remembered: "http://replica-host:8080", environment: withVariable) == "http://from-env:9000")
        #expect(DefaultServer.text(option: "http://given:1", remembered: "http://replica-host:8080", environment: withVariable) == "http://given:1")
    }

    @Test("A replica remembers the server of its first sync and refuses another, naming both")
    func replicaKeepsItsServer() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let replica = directory.appendingPathComponent("cardealer-replica")
        #expect(DefaultServer.replicaServer(replica) == nil)
        try DefaultServer.bind(replica: replica, to: URL(string: "http://10.0.0.5:8080/")!)
        #expect(DefaultServer.replicaServer(replica) == "http://10.0.0.5:8080")
        try DefaultServer.bind(replica: replica, to: URL(string: "http://10.0.0.5:8080")!)
        #expect {
            try DefaultServer.bind(replica: replica, to: URL(string: "http://127.0.0.1:8080/")!)
        } throws: { error in
            let text = String(describing: error)
            return text.contains("is a replica of http://10.0.0.5:8080") && text.contains("--server http://10.0.0.5:8080")
        }
        #expect(DefaultServer.replicaServer(replica) == "http://10.0.0.5:8080")
    }
}
