import Foundation
import HTTPTypes
import HummingbirdTesting
import StrataCore
@testable import StrataServer
import Testing

/// openapi-spec-validator accepts every demo service's document, JSON and YAML, as an anonymous
/// caller and as an editor reads it, and the server's own `/openapi.json` (issue 41, point 4). The validator lives in a pinned virtualenv
/// (Fixtures/openapi-tools; `.ci/run` makes it, a test run without it makes it first, which needs PyPI).
@Suite("OpenAPI: documents pass openapi-spec-validator")
struct ServiceOpenAPIValidationTests {
    static let tools = FixtureVirtualenv(fixture: "openapi-tools", environment: "STRATA_OPENAPI_VENV", default: "/tmp/strata-openapi-venv")

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The validator's verdict on each file: "ok" or the problem.
    static func validate(_ files: [String]) async throws -> [String: String] {
        try await tools.install()
        let result = try await ChildProcess.run(tools.python, [tools.fixture + "/validate.py"] + files)
        guard result.status == 0 else { throw Failure(description: "validate.py failed (\(result.status)): \(result.errors.suffix(3000))") }
        let verdicts = try JSONValue.parse(Array(result.output.utf8)).objectValue ?? JSONObject()
        return Dictionary(uniqueKeysWithValues: verdicts.map { ($0.key, $0.value.stringValue ?? "?") })
    }

    @Test("Every demo service's document, for anonymous callers and for editors, and the server's own, in JSON and YAML", arguments: Backend.allCases)
    func demoDocuments(_ backend: Backend) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-openapi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let files: [String] = try await ServiceOpenAPITests.withServer(backend, setup: { admin in
            // One V4 service, so that both JSON formats' documents are checked.
            _ = try await admin.configureService("speakeasy", odataVersion: .v4)
        }) { client in
            var files: [String] = []
            for service in ["cardealer", "hockey", "speakeasy"] {
                for (who, headers) in [("anonymous", HTTPFields()), ("editor", basic(TestAccounts.editor))] {
                    for format in ["json", "yaml"] {
                        let response = try await client.get("/\(service)/openapi.\(format)", headers: headers)
                        // hockey is for signed-in callers only: anonymous callers are refused its document.
                        if service == "hockey", who == "anonymous" {
                            #expect(response.status == .unauthorized)
                            continue
                        }
                        #expect(response.status == .ok, "\(service) \(who): \(response.text.prefix(200))")
                        let file = folder.appendingPathComponent("\(service)-\(who).\(format)")
                        try Data(response.text.utf8).write(to: file)
                        files.append(file.path)
                    }
                }
            }
            // The server's own document.
            for format in ["json", "yaml"] {
                let response = try await client.get("/openapi.\(format)")
                #expect(response.status == .ok)
                let file = folder.appendingPathComponent("server.\(format)")
                try Data(response.text.utf8).write(to: file)
                files.append(file.path)
            }
            return files
        }
        let verdicts = try await Self.validate(files)
        // One verdict a file, and one a JSON document and its YAML twin (the same tree, read by PyYAML).
        #expect(verdicts.count == files.count + files.count / 2, "\(verdicts.keys.sorted())")
        for file in files {
            #expect(verdicts[file] == "ok", "\(URL(fileURLWithPath: file).lastPathComponent): \(verdicts[file] ?? "no verdict")")
        }
        for (name, verdict) in verdicts where name.contains(" = ") {
            #expect(verdict == "ok", "\(name): \(verdict)")
        }
    }
}
