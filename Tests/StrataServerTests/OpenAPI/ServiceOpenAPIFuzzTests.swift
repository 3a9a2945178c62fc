import Foundation
import HTTPTypes
import HummingbirdTesting
import StrataCore
@testable import StrataServer
import Testing

/// schemathesis against every demo service's document, as an anonymous caller and as an editor
/// (issue 41, point 4), and against the server's own `/openapi.json`: no 5xx, and every answer's status, content type and body as the document
/// says. Each backend serves some services as V2 and the others as V4, so both JSON formats'
/// documents are fuzzed on each database over the two runs.
///
/// Bounded: 10 examples per operation, one worker (two crash CPython 3.11's `ast.parse` inside
/// hypothesis), a fixed seed so a failure reproduces; about a minute per backend.
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

    @Test("Every demo service, anonymous and as an editor, and the server's own API as an administrator: no failures", arguments: Backend.allCases)
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
            let editor = ["-a", "\(TestAccounts.editor):\(TestAccounts.password(TestAccounts.editor))"]
            let admin = ["-a", "\(TestAccounts.admin):\(TestAccounts.password(TestAccounts.admin))"]
            // The server's own document last, as an administrator (who may call all of it): its fuzzing
            // changes accounts, grants and settings, which the services' runs must not see.
            let runs = ["cardealer", "hockey", "speakeasy"].flatMap { service in
                [(service + "/openapi.json", "anonymous", [String]()), (service + "/openapi.json", "editor", editor)]
            } + [("openapi.json", "admin", admin)]
            // Operations fuzzed per document and caller: an editor's document has writes an anonymous caller's lacks,
            // so a run whose credentials failed (every answer a documented 401) shows as fewer operations.
            var selected: [String: Int] = [:]
            for (document, who, auth) in runs {
                // hockey is for signed-in callers: an anonymous caller has no document of it to fuzz.
                if document.hasPrefix("hockey"), who == "anonymous" { continue }
                let result = try await ChildProcess.run(tools.python, [
                    "-m", "schemathesis.cli", "run", "http://127.0.0.1:\(port)/\(document)",
                    // The server's document is mostly /admin, whose bodies it describes loosely: fewer examples.
                    "--checks", Self.checks, "--max-examples", document == "openapi.json" ? "5" : "10", "--seed", "1", "--no-shrink", "--workers", "1",
                    // A full test run starves the generator of CPU: hypothesis's "too slow" health
                    // checks are about generating data, not about the server, and answers get time.
                    "--suppress-health-check", "all", "--request-timeout", "30",
                ] + auth, environment: ["PYTHONDONTWRITEBYTECODE": "1", "NO_COLOR": "1"], directory: scratch.path)
                let summary = result.output.split(separator: "\n").filter { $0.contains("generated") || $0.contains("❌") }
                // A run that generated nothing (a document it could not read) would pass vacuously.
                #expect(summary.contains { $0.contains("generated") && $0.contains("passed") }, "\(document) as \(who): \(result.output.suffix(3000))")
                selected[document + " " + who] = result.output.split(separator: "\n")
                    .first { $0.contains("Selected:") }
                    .flatMap { Int($0.split(separator: ":").last?.split(separator: "/").first?.trimmingCharacters(in: .whitespaces) ?? "") }
                #expect(result.status == 0, "\(document) as \(who): \(summary.joined(separator: "; "))\n\(result.output.suffix(6000))\(result.errors.suffix(2000))")
            }
            for service in ["cardealer", "speakeasy"] {
                let (anonymous, editor) = (selected["\(service)/openapi.json anonymous"] ?? 0, selected["\(service)/openapi.json editor"] ?? 0)
                #expect(anonymous > 0 && editor > anonymous, "\(service): \(anonymous) operations for anonymous callers, \(editor) for an editor")
            }
        }
    }
}
