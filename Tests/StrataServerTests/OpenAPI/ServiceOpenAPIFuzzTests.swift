import Foundation
import HTTPTypes
import HummingbirdTesting
import StrataCore
@testable import StrataServer
import Testing

/// schemathesis against every demo service's document, as an anonymous caller and as an editor
/// (issue 41, point 4): no 5xx, and every answer's status, content type and body as the document
/// says. Each backend serves some services as V2 and the others as V4, so both JSON formats'
/// documents are fuzzed on each database over the two runs.
///
/// Bounded: 10 examples per operation, one worker (two crash CPython 3.11's `ast.parse` inside
/// hypothesis), a fixed seed so a failure reproduces; about 40 s per backend.
@Suite("OpenAPI: schemathesis against the demo services", .serialized)
struct ServiceOpenAPIFuzzTests {
    static let checks = "not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance"

    /// The services answering V4 by default on `backend`; the others answer V2.
    static func v4Services(_ backend: Backend) -> [String] {
        backend == .sqlite ? ["cardealer"] : ["hockey", "speakeasy"]
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    @Test("Every demo service, anonymous and as an editor: no failures", arguments: Backend.allCases)
    func fuzz(_ backend: Backend) async throws {
        let tools = ServiceOpenAPIValidationTests.tools
        try await tools.install()
        try await withAuthServer(backend, testing: .live, setup: { admin in
            for service in Self.v4Services(backend) { _ = try await admin.configureService(service, odataVersion: .v4) }
        }) { client, _ in
            let port = try #require(client.port)
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("strata-schemathesis-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: scratch) }
            for service in ["cardealer", "hockey", "speakeasy"] {
                for (who, auth) in [("anonymous", [String]()), ("editor", ["-a", "\(TestAccounts.editor):\(TestAccounts.password(TestAccounts.editor))"])] {
                    // hockey is for signed-in callers: an anonymous caller has no document of it to fuzz.
                    if service == "hockey", who == "anonymous" { continue }
                    let result = try await ChildProcess.run(tools.python, [
                        "-m", "schemathesis.cli", "run", "http://127.0.0.1:\(port)/\(service)/openapi.json",
                        "--checks", Self.checks, "--max-examples", "10", "--seed", "1", "--no-shrink", "--workers", "1",
                    ] + auth, environment: ["PYTHONDONTWRITEBYTECODE": "1", "NO_COLOR": "1"], directory: scratch.path)
                    let summary = result.output.split(separator: "\n").filter { $0.contains("generated") || $0.contains("❌") }
                    // A run that generated nothing (a document it could not read) would pass vacuously.
                    #expect(summary.contains { $0.contains("generated") && $0.contains("passed") }, "\(service) as \(who): \(result.output.suffix(3000))")
                    #expect(result.status == 0, "\(service) as \(who): \(summary.joined(separator: "; "))\n\(result.output.suffix(6000))\(result.errors.suffix(2000))")
                }
            }
        }
    }
}
