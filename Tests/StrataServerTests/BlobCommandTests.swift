import Foundation
import HTTPTypes
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// `strata blob …` against a server process, signed in with `strata login`, as a person would.
@Suite("Blobs: strata blob commands")
struct BlobCommandTests {
    struct Run {
        var status: Int32
        var output: String
        var errors: String
    }

    /// Runs the `strata` executable as a person would in `directory`, through ``ChildProcess``.
    static func strata(_ arguments: [String], environment: [String: String], input: String? = nil,
                       directory: String) throws -> Run {
        let result = try ChildProcess.run(try StrataProcess.executable(), arguments, environment: environment, input: input, directory: directory)
        return Run(status: result.status, output: result.output, errors: result.errors)
    }

    @Test("login, mk, put, ls, get, rm: a file goes up and comes back the same; refusals are errors with the server's message",
          arguments: Backend.allCases)
    func commands(_ backend: Backend) async throws {
        try await PostgresSlots.run(backend) { try await Self.commands(on: backend) }
    }

    static func commands(on backend: Backend) async throws {
        let configuration = try await TestDatabases.shared.configuration(backend, demo: false)
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let arguments = StrataProcess.serveArguments(configuration)
        let server = try await StrataProcess.start(try StrataProcess.executable(), arguments: arguments)
        defer { server.kill() }
        let work = configuration.dataDirectory + "/cli"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let environment = ["STRATA_SERVER": "http://127.0.0.1:\(server.port)", "STRATA_CREDENTIALS": work + "/credentials"]
        func run(_ arguments: String..., input: String? = nil) async throws -> Run {
            let arguments = Array(arguments)
            return try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread {
                    continuation.resume(with: Result { try Self.strata(arguments, environment: environment, input: input, directory: work) })
                }
            }
        }
        let content = Data(BlobTestData.binary(2_000_000))
        try content.write(to: URL(fileURLWithPath: work + "/photo.bin"))

        let refused = try await run("blob", "put", "photo.bin", "albums/photo.bin")
        #expect(refused.status != 0)
        #expect(refused.errors.contains("404") || refused.errors.contains("401"), "\(refused.errors)")

        let login = try await run("login", "http://127.0.0.1:\(server.port)", "--username", TestAccounts.tester, "--password-stdin",
                                  input: TestAccounts.testerPassword + "\n")
        #expect(login.status == 0, "\(login.errors)")
        #expect(try await run("blob", "mk", "albums").status == 0)
        let put = try await run("blob", "put", "photo.bin", "albums/2024/photo.bin", "--content-type", "image/x-test")
        #expect(put.status == 0, "\(put.errors)")
        #expect(put.output.contains("2000000 bytes"))
        let listed = try await run("blob", "ls", "albums/2024/")
        #expect(listed.output.hasPrefix("2000000\t") && listed.output.contains("\t2024/photo.bin"), "\(listed.output)")
        #expect(try await run("blob", "ls").output == "albums\tprivate\n")
        let get = try await run("blob", "get", "albums/2024/photo.bin", "copy.bin")
        #expect(get.status == 0, "\(get.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: work + "/copy.bin")) == content)
        let again = try await run("blob", "put", "photo.bin", "albums/2024/photo.bin", "--if-absent")
        #expect(again.status != 0)
        #expect(again.errors.contains("412"), "\(again.errors)")
        let notEmpty = try await run("blob", "rm", "albums")
        #expect(notEmpty.errors.contains("not empty"), "\(notEmpty.errors)")
        #expect(try await run("blob", "rm", "albums/2024/photo.bin").status == 0)
        #expect(try await run("blob", "rm", "albums").status == 0)
        #expect(try await run("blob", "ls").output.isEmpty)
    }
}
