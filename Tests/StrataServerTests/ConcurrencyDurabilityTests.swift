import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
@testable import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// An acknowledged write survives `kill -9` of the server process: the `strata` executable runs as
/// a child process, takes writes, is killed without warning, restarts on the same data, and reads.
@Suite("Durability")
struct ConcurrencyDurabilityTests {
    @Test("Writes acknowledged before kill -9 are there after a restart", arguments: Backend.allCases)
    func killNine(_ backend: Backend) async throws {
        let binary = try StrataProcess.executable()
        let configuration = try await TestDatabases.shared.configuration(backend)
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let arguments = StrataProcess.serveArguments(configuration)

        var server = try await StrataProcess.start(binary, arguments: arguments)
        var created: [(uri: String, name: String)] = []
        do {
            for index in 0..<20 {
                let name = "Durable\(index)"
                let response = try await server.request(.post, "/cardealer/Person", body: #"{"firstName":"\#(name)","lastName":"Kill"}"#)
                #expect(response.status == .created)
                created.append((try #require(response.headers[.location]).replacingOccurrences(of: "http://localhost", with: ""), name))
            }
            let merged = try await server.request(HTTPRequest.Method("MERGE")!, "/cardealer/Person(1)", body: #"{"ssn":"after-crash"}"#)
            #expect(merged.status == .noContent)
            // No pause and no shutdown: the process dies right after the last acknowledgement.
            server.kill()
        } catch {
            server.kill()
            throw error
        }

        server = try await StrataProcess.start(binary, arguments: arguments)
        defer { server.kill() }
        for (uri, name) in created {
            let read = try await server.request(.get, uri)
            #expect(read.status == .ok, "\(uri) is gone after the restart")
            #expect(read.text.contains(name))
        }
        #expect(try await server.request(.get, "/cardealer/Person(1)").text.contains("after-crash"))
    }
}
