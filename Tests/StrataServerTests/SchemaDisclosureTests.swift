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

/// A caller learns the names of exactly what it may use — through every path. A matrix of callers ×
/// demo services × paths (`$metadata`, the service document, sets, keys, navigation, `$expand`,
/// `$filter`, `$select`, `$orderby`, `$sql`, `$tables`, `$feed`, `$batch`, `$changes`, the service
/// list) × names that do not exist: no answer holds a table, column or navigation name the caller
/// may not see (besides a name the request itself wrote), and a service the caller may not use at all
/// answers 401 or 403 to every path. (A probe found anonymous `$sql` errors listing hockey's columns,
/// `$tables` and `$feed` listing its tables, and `SELECT 1` answering 200, although its `$metadata`
/// answered 401.)
@Suite("Schema disclosure matrix")
struct SchemaDisclosureTests {
    static let services = ["cardealer", "hockey", "speakeasy"]

    /// The test accounts, and a role with one right on one hockey table.
    static let callers: [(name: String, headers: HTTPFields)] = AuthAccessTests.callers + [("equiprep", basic("equiprep"))]

    static func setup(_ admin: Administration) async throws {
        try await admin.addUser("equiprep", password: TestAccounts.password("equiprep"), roles: [RoleAssignment(role: "equipment")])
        try await admin.grant(role: "equipment", service: "hockey", table: "Equipment", actions: [.read], rowFilter: nil)
    }

    /// Words of Strata's messages that are also column names; a column named so is not looked for.
    static let englishWords: Set<String> = ["name", "size", "city", "brand", "model", "price", "position", "category", "description", "notes", "cost", "State", "City", "Name", "Title", "Bio"]

    /// The `Name="…"` values of a `$metadata` document: sets, types, properties, navigation
    /// properties, associations.
    static func names(inMetadata text: String) -> Set<String> {
        var names: Set<String> = []
        var rest = Substring(text)
        while let start = rest.range(of: "Name=\"") {
            rest = rest[start.upperBound...]
            guard let end = rest.firstIndex(of: "\"") else { break }
            names.insert(String(rest[..<end]))
            rest = rest[rest.index(after: end)...]
        }
        return names
    }

    /// Whether `text` holds `word` as a whole identifier.
    static func mentions(_ text: String, _ word: String) -> Bool {
        var search = text[...]
        let isPart = { (c: Character) in c.isLetter || c.isNumber || c == "_" }
        while let range = search.range(of: word) {
            let before = range.lowerBound == text.startIndex ? nil : text[text.index(before: range.lowerBound)]
            let after = range.upperBound == text.endIndex ? nil : text[range.upperBound]
            if !(before.map(isPart) ?? false), !(after.map(isPart) ?? false) { return true }
            search = text[range.upperBound...]
        }
        return false
    }

    /// One probe: method, path, body.
    struct Probe {
        var method: HTTPRequest.Method
        var path: String
        var body: String?
        var contentType: String? = nil
    }

    static func sql(_ service: String, _ text: String) -> Probe {
        let body = String(decoding: DataTableQuery(sql: text).jsonBytes, as: UTF8.self)
        return Probe(method: .post, path: "/\(service)/$sql", body: body, contentType: "application/json")
    }

    /// Every path with a name that does not exist, and every path at each of the service's tables.
    static func probes(_ service: String, tables: [String]) -> [Probe] {
        var probes: [Probe] = [
            Probe(method: .get, path: "/\(service)/", body: nil), Probe(method: .get, path: "/\(service)/$metadata", body: nil),
            Probe(method: .get, path: "/\(service)/Nope", body: nil), Probe(method: .get, path: "/\(service)/Nope(1)/Nope", body: nil),
            sql(service, "SELECT 1 AS v"), sql(service, "SELECT * FROM Nope"), sql(service, "SELECT nope"),
            Probe(method: .get, path: "/\(service)/$tables?names=Nope", body: nil), Probe(method: .get, path: "/\(service)/$tables/Nope", body: nil),
            Probe(method: .get, path: "/\(service)/$feed?sets=Nope", body: nil),
            Probe(method: .post, path: "/\(service)/$changes", body: #"{"changes":[{"id":"1","table":"Nope","kind":"insert","key":{"nope":-1},"values":{"nope":1}}]}"#,
                  contentType: "application/json"),
        ]
        var parts = [BatchBody.Item.query("Nope")]
        for table in tables {
            probes += [
                sql(service, "SELECT nope FROM \(table)"), sql(service, "SELECT * FROM \(table) JOIN Nope ON 1 = 1"),
                Probe(method: .get, path: "/\(service)/$tables/\(table)?$select=nope", body: nil),
                Probe(method: .get, path: "/\(service)/$tables?names=\(table),Nope", body: nil),
                Probe(method: .get, path: "/\(service)/\(table)?$expand=Nope", body: nil),
                Probe(method: .get, path: "/\(service)/\(table)?$filter=nope%20eq%201", body: nil),
                Probe(method: .get, path: "/\(service)/\(table)?$select=nope", body: nil),
                Probe(method: .get, path: "/\(service)/\(table)?$orderby=nope", body: nil),
                Probe(method: .get, path: "/\(service)/\(table)(1)/Nope", body: nil),
                Probe(method: .post, path: "/\(service)/\(table)", body: #"{"nope":1}"#, contentType: "application/json"),
                Probe(method: .post, path: "/\(service)/$changes",
                      body: #"{"changes":[{"id":"1","table":"\#(table)","kind":"update","key":{"nope":1},"values":{"nope":1}}]}"#,
                      contentType: "application/json"),
            ]
            parts.append(.query("\(table)?$select=nope"))
        }
        let batch = BatchBody(items: parts)
        probes.append(Probe(method: .post, path: "/\(service)/$batch", body: batch.text, contentType: batch.contentType))
        return probes
    }

    @Test("Callers × services × paths × unknown names: nothing the caller may not see is named; closed services answer 401/403 first", arguments: Backend.allCases)
    func matrix(_ backend: Backend) async throws {
        try await withAuthServer(backend, setup: Self.setup) { client in
            let admin = basic(TestAccounts.admin)
            var full: [String: (names: Set<String>, tables: [String])] = [:]
            for service in Self.services {
                let metadata = try await client.get("/\(service)/$metadata", headers: admin).text
                let sets = try await client.get("/\(service)/", headers: admin).json["d"]?["EntitySets"]?.arrayValue?.compactMap(\.stringValue) ?? []
                full[service] = (Self.names(inMetadata: metadata), sets)
            }
            var probed = 0
            for caller in Self.callers {
                // The service list names the services the caller may use, and those only.
                let listed = Set(try await client.get("/", headers: caller.headers).json["services"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? [])
                let unknownService = try await client.get("/nope", headers: caller.headers)
                #expect(unknownService.status == .notFound)
                for service in Self.services {
                    let metadata = try await client.get("/\(service)/$metadata", headers: caller.headers)
                    let closed = metadata.status == .unauthorized || metadata.status == .forbidden
                    // hockey is open to its readers and to the role with a right in it; the others to all.
                    #expect(closed == (service == "hockey" && ["anonymous", "nobody"].contains(caller.name)), "\(caller.name) \(service): \(metadata.status)")
                    #expect(listed.contains(service) == !closed, "\(caller.name): / lists \(listed.sorted())")
                    #expect(Self.mentions(unknownService.text, service) == !closed, "\(caller.name): \(unknownService.text)")
                    let (names, tables) = try #require(full[service])
                    let visible = closed ? [] : Self.names(inMetadata: metadata.text)
                    let hidden = names.subtracting(visible).subtracting(Self.englishWords)
                    if caller.name == "equiprep", service == "hockey" {
                        #expect(hidden.isSuperset(of: ["Teams", "Players", "teamID", "jerseyNumber"]) && !hidden.contains("Equipment"), "\(hidden.sorted())")
                    }
                    if ["anonymous", "nobody", "reader", "hockeyfan", "equiprep"].contains(caller.name), service == "cardealer" {
                        #expect(Self.mentions(metadata.text, "ssn") == false && hidden.contains("ssn"), "\(caller.name) sees ssn")
                    }
                    for probe in Self.probes(service, tables: tables) {
                        var headers = caller.headers
                        if let type = probe.contentType { headers[.contentType] = type }
                        let response = try await client.send(probe.method, probe.path, headers: headers, body: probe.body)
                        probed += 1
                        let label = "\(caller.name) \(probe.method) \(probe.path) \(probe.body?.prefix(120) ?? "")"
                        #expect(response.status.code < 500, "\(label): \(response.status)")
                        if closed {
                            #expect(response.status == metadata.status, "\(label): \(response.status) \(response.text.prefix(200))")
                        }
                        let request = probe.path + (probe.body ?? "")
                        let leaked = hidden.filter { Self.mentions(response.text, $0) && !Self.mentions(request, $0) }
                        #expect(leaked.isEmpty, "\(label) → \(response.status) names \(leaked.sorted()): \(response.text.prefix(400))")
                    }
                }
            }
            #expect(probed > 500)
        }
    }
}
