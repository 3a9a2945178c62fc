import Foundation
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// `strata service model` and `strata service reload` as a person runs them: the model printed,
/// edited and saved, a running server process told to reload, a bad edit refused with its line.
@Suite("Model files: strata service model and reload")
struct ModelFileCommandTests {
    @Test("Print the model, hide a column, reload the running server; a bad file is refused and changes nothing")
    func printEditReload() async throws {
        let configuration = try await TestDatabases.shared.configuration(.sqlite, demo: false)
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        try await TestDatabases.shared.provision("shop", .sqlite, into: configuration,
                                                 scripts: ModelFileServingTests.shop.scripts(.sqlite))
        let data = configuration.dataDirectory
        let work = data + "/cli"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let modelFile = URL(fileURLWithPath: data).appendingPathComponent("shop.model.yaml")
        func run(_ arguments: String..., environment: [String: String] = [:], input: String? = nil) async throws -> BlobCommandTests.Run {
            let arguments = Array(arguments)
            let environment = environment.merging(["STRATA_CREDENTIALS": work + "/credentials"]) { $1 }
            return try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread {
                    continuation.resume(with: Result { try BlobCommandTests.strata(arguments, environment: environment, input: input, directory: work) })
                }
            }
        }

        let printed = try await run("service", "model", "shop", "--data", data)
        #expect(printed.status == 0, "\(printed.errors)")
        #expect(printed.output.contains("      secret: { name: secret, type: Edm.String }"), "\(printed.output)")
        #expect(printed.output.contains("  big_purchase:  # a view"))
        let edited = printed.output.replacingOccurrences(of: "      secret: { name: secret, type: Edm.String }", with: "      secret: { hidden: true }")
        try edited.write(to: modelFile, atomically: true, encoding: .utf8)
        let reprinted = try await run("service", "model", "shop", "--data", data)
        #expect(reprinted.output.contains("      secret: { hidden: true }"), "\(reprinted.output)")
        #expect(!reprinted.output.contains("secret: { name"))

        // The server starts before the edit applies to it: it reads the file it finds at start.
        try printed.output.write(to: modelFile, atomically: true, encoding: .utf8)
        let server = try await StrataProcess.start(try StrataProcess.executable(), arguments: ["serve", "--data", data, "--log-level", "error"])
        defer { server.kill() }
        let environment = ["STRATA_SERVER": "http://127.0.0.1:\(server.port)"]
        let login = try await run("login", "http://127.0.0.1:\(server.port)", "--username", TestAccounts.tester, "--password-stdin",
                                  environment: environment, input: TestAccounts.testerPassword + "\n")
        #expect(login.status == 0, "\(login.errors)")
        #expect(try await run("get", "shop/customer(1)", environment: environment).output.contains("hunter2"))

        try edited.write(to: modelFile, atomically: true, encoding: .utf8)
        let reload = try await run("service", "reload", environment: environment)
        #expect(reload.status == 0, "\(reload.errors)")
        let ada = try await run("get", "shop/customer(1)", environment: environment)
        #expect(ada.output.contains("Ada") && !ada.output.contains("hunter2"), "\(ada.output)")

        try edited.replacingOccurrences(of: "      secret: { hidden: true }", with: "      nosuch: { hidden: true }")
            .write(to: modelFile, atomically: true, encoding: .utf8)
        let refused = try await run("service", "reload", environment: environment)
        #expect(refused.status != 0)
        #expect(refused.errors.contains("shop.model.yaml:") && refused.errors.contains("nosuch"), "\(refused.errors)")
        let still = try await run("get", "shop/customer(1)", environment: environment)
        #expect(still.output.contains("Ada") && !still.output.contains("hunter2"), "\(still.output)")
        let checked = try await run("service", "model", "shop", "--data", data)
        #expect(checked.status != 0 && checked.errors.contains("nosuch"), "\(checked.errors)")
    }
}
