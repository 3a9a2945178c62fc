import Foundation
import HTTPTypes
import HummingbirdTesting
import StrataCore
@testable import StrataServer
@testable import StrataIdentity
@testable import StrataOData
import Testing

/// `/{service}/openapi.json` and `.yaml` (issue 41): one document per caller, from the model it is
/// served — columns a model file keeps from it are not there, writes it cannot make are not there —
/// and every path in it is a path the server answers.
@Suite("OpenAPI: service documents per caller")
struct ServiceOpenAPITests {
    /// The CarDealer sample's model file: `ssn` readable by editors (and administrators) only.
    static let modelFile = "tables:\n  Person:\n    columns:\n      ssn: { readableBy: [editor] }\n"

    static func withServer<T: Sendable>(_ backend: Backend, setup: @Sendable (Administration) async throws -> Void = { _ in },
                                        _ test: @Sendable (any TestClientProtocol) async throws -> T) async throws -> T {
        try await withAuthServer(backend, configure: { configuration in
            try? Self.modelFile.write(to: URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("cardealer.model.yaml"),
                                      atomically: true, encoding: .utf8)
        }, setup: setup, test)
    }

    /// The document `headers`' caller reads for `service`.
    static func document(_ client: any TestClientProtocol, _ service: String, _ headers: HTTPFields = [:]) async throws -> JSONValue {
        let response = try await client.get("/\(service)/openapi.json", headers: headers)
        #expect(response.status == .ok, "\(service): \(response.text.prefix(300))")
        #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
        return response.json
    }

    /// The methods of each path.
    static func operations(_ document: JSONValue) -> [String: Set<String>] {
        var operations: [String: Set<String>] = [:]
        for (path, item) in document["paths"]?.objectValue ?? JSONObject() {
            operations[path] = Set((item.objectValue ?? JSONObject()).map(\.key).filter { $0 != "parameters" && $0 != "summary" })
        }
        return operations
    }

    @Test("Anonymous callers, readers, editors and administrators each read the document their rights make", arguments: Backend.allCases)
    func perCaller(_ backend: Backend) async throws {
        try await Self.withServer(backend) { client in
            let anonymous = try await Self.document(client, "cardealer")
            let reader = try await Self.document(client, "cardealer", basic(TestAccounts.reader))
            let editor = try await Self.document(client, "cardealer", basic(TestAccounts.editor))
            let admin = try await Self.document(client, "cardealer", basic(TestAccounts.admin))
            #expect(anonymous["openapi"]?.stringValue == "3.1.0")

            for (who, document) in [("anonymous", anonymous), ("reader", reader)] {
                let paths = Self.operations(document)
                #expect(paths["/Person"] == ["get"], "\(who): \(paths["/Person"] ?? [])")
                #expect(paths["/Person({personID})"] == ["get"], "\(who)")
                #expect(paths["/Person({personID})/PersonCar"] == ["get"], "\(who)")
                #expect(paths["/Person/$count"] == ["get"], "\(who)")
                #expect(paths["/$batch"] == ["post"], "\(who)")
                #expect(document["components"]?["schemas"]?["Person.create"] == nil, "\(who)")
                // The restricted column is nowhere: not in a schema, not in an example, not in a parameter.
                var writer = JSONWriter()
                writer.value(document)
                let text = String(decoding: writer.bytes, as: UTF8.self)
                #expect(!text.contains("ssn"), "\(who)")
            }
            for (who, document) in [("editor", editor), ("admin", admin)] {
                let paths = Self.operations(document)
                #expect(paths["/Person"] == ["get", "post"], "\(who)")
                #expect(paths["/Person({personID})"] == ["get", "put", "patch", "delete"], "\(who)")
                #expect(document["components"]?["schemas"]?["Person"]?["properties"]?["ssn"] != nil, "\(who)")
                #expect(document["components"]?["schemas"]?["Person.create"]?["properties"]?["ssn"] != nil, "\(who)")
                // A generated key is the database's to give.
                #expect(document["components"]?["schemas"]?["Person.create"]?["properties"]?["personID"] == nil, "\(who)")
                let required = document["components"]?["schemas"]?["Person.create"]?["required"]?.arrayValue?.compactMap(\.stringValue)
                #expect(required == ["firstName", "lastName"], "\(who)")
            }
            // Links lead from a created entity to its key's operations, and from a page to reading its first entity.
            let created = editor["paths"]?["/Person"]?["post"]?["responses"]?["201"]?["links"]
            #expect(Set(created?.objectValue?.map(\.key) ?? []) == ["get", "update", "replace", "delete"])
            #expect(created?["update"]?["parameters"]?["personID"]?.stringValue == "$response.body#/d/personID")
            let listed = anonymous["paths"]?["/Person"]?["get"]?["responses"]?["200"]?["links"]
            #expect(listed?.objectValue?.map(\.key) == ["get"])
            #expect(listed?["get"]?["parameters"]?["personID"]?.stringValue == "$response.body#/d/results/0/personID")
            // V2 verbose JSON is the demo's default: {"d": …}, Int32 as a number, dates as /Date(ms)/.
            #expect(anonymous["components"]?["schemas"]?["Person.collection"]?["properties"]?["d"] != nil)
            #expect(anonymous["components"]?["schemas"]?["Person"]?["properties"]?["createDate"]?["pattern"]?.stringValue?.contains("Date") == true)
            // Security schemes point at the hosted sign-in.
            let oauth = anonymous["components"]?["securitySchemes"]?["oauth2"]?["flows"]?["authorizationCode"]
            #expect(oauth?["authorizationUrl"]?.stringValue?.hasSuffix("/auth/sign-in?service=cardealer") == true, "\(String(describing: oauth))")
            #expect(oauth?["tokenUrl"]?.stringValue?.hasSuffix("/auth/token") == true)
            #expect(anonymous["components"]?["securitySchemes"]?["bearer"]?["bearerFormat"]?.stringValue == "JWT")

            // A caller the service refuses reads no document of it.
            #expect(try await client.get("/hockey/openapi.json").status == .unauthorized)
            #expect(try await client.get("/hockey/openapi.json", headers: basic(TestAccounts.reader)).status == .ok)
            #expect(try await client.send(.post, "/cardealer/openapi.json", headers: basic(TestAccounts.admin), body: "").status == .methodNotAllowed)
        }
    }

    @Test("The YAML document is the JSON document's tree")
    func yamlOfTheSameTree() async throws {
        try await Self.withServer(.sqlite) { client in
            let yaml = try await client.get("/speakeasy/openapi.yaml")
            #expect(yaml.status == .ok)
            #expect(yaml.headers[.contentType] == "application/yaml")
            #expect(yaml.text.contains("\nopenapi: \"3.1.0\"\n"), "\(yaml.text.prefix(100))")
            let document = try await Self.document(client, "speakeasy")
            #expect(yaml.text == OpenAPIYAML.text(of: document))
            #expect(yaml.text.contains("\n  \"/Events(PartitionKey='{PartitionKey}',RowKey='{RowKey}')\":\n"))
        }
    }

    @Test("A V4 service's document describes V4's JSON", arguments: Backend.allCases)
    func v4Service(_ backend: Backend) async throws {
        try await Self.withServer(backend, setup: { admin in _ = try await admin.configureService("hockey", odataVersion: .v4) }) { client in
            let document = try await Self.document(client, "hockey", basic(TestAccounts.editor))
            let schemas = document["components"]?["schemas"]
            #expect(schemas?["Players.collection"]?["properties"]?["value"] != nil)
            #expect(schemas?["Players"]?["properties"]?["birthDate"]?["format"]?.stringValue == "date-time")
            #expect(schemas?["Players.single"] == nil)
            #expect(Self.operations(document)["/Players"]?.contains("post") == true)
            #expect(document["paths"]?["/Players"]?["get"]?["parameters"]?.arrayValue?.contains { $0["name"]?.stringValue == "$count" } == true)
        }
    }

    @Test("Every path of every demo service's document answers, with keys of entities that are there", arguments: Backend.allCases)
    func everyPathAnswers(_ backend: Backend) async throws {
        try await Self.withServer(backend) { client in
            for service in ["cardealer", "hockey", "speakeasy"] {
                let admin = basic(TestAccounts.admin)
                let document = try await Self.document(client, service, admin)
                for (path, methods) in Self.operations(document) {
                    let url = try await Self.fill(path, service: service, client: client, headers: admin)
                    let method: HTTPRequest.Method = methods.contains("get") ? .get : .post
                    let response = try await client.send(method, "/\(service)" + url, headers: admin, body: "")
                    #expect(response.status != .notFound && response.status.code < 500, "\(method) /\(service)\(url): \(response.status) \(response.text.prefix(200))")
                }
            }
        }
    }

    /// `path` with its `{parameters}` replaced by the key of the first entity of its set.
    static func fill(_ path: String, service: String, client: any TestClientProtocol, headers: HTTPFields) async throws -> String {
        guard path.contains("{") else { return path }
        let set = String(path.dropFirst().prefix { $0 != "(" })
        let first = try await client.get("/\(service)/\(set)?$top=1", headers: headers).json["d"]["results"][0]
        var filled = path
        for (name, value) in first?.objectValue ?? JSONObject() {
            let text: String
            switch value {
            case .number(let digits): text = digits
            case .string(let string): text = string.replacingOccurrences(of: "'", with: "''")
                .addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? string
            default: continue
            }
            filled = filled.replacingOccurrences(of: "{\(name)}", with: text)
        }
        #expect(!filled.contains("{"), "\(path) → \(filled)")
        return filled
    }
}
