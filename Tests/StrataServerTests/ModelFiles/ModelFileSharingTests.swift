import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOConcurrencyHelpers
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// Model files live in the system database, so every server on it serves a service the same way;
/// a data directory's file is how a single server is shaped, and replaces the stored model only
/// when it is newer.
@Suite("Model files: shared through the system database")
struct ModelFileSharingTests {
    static let shop = ModelFileServingTests.shop
    static let hideName = "tables:\n  customer:\n    columns:\n      name: { hidden: true }\n"
    static let hideSecret = "tables:\n  customer:\n    columns:\n      secret: { hidden: true }\n"

    /// Which of the customer's columns the server shows.
    static func shown(_ client: any TestClientProtocol) async throws -> Set<String> {
        let ada = try await client.get("/shop/customer(1)")
        guard case .object(let fields)? = ada.json["d"] else { return [] }
        return Set(fields.map(\.key)).intersection(["name", "secret"])
    }

    @Test("A model file on one server's disk is stored in the system database and served by a server without it")
    func sharedFile() async throws {
        try await withTwoServers(services: [Self.shop], configure: { ModelFileServingTests.write(Self.hideSecret, into: $0) }) { servers in
            let (onFirst, onSecond) = (try await Self.shown(servers.a), try await Self.shown(servers.b))
            #expect(onFirst == ["name"] && onSecond == ["name"], "\(onFirst) \(onSecond)")
        }
    }

    @Test("A model applied with --apply reaches every server on reload; an older file left on disk does not bring the old model back",
          arguments: Backend.allCases)
    func appliedBeatsOlderFile(_ backend: Backend) async throws {
        let configuration = NIOLockedValueBox<StrataConfiguration?>(nil)
        try await withServer(backend, services: [Self.shop], configure: { settings in
            ModelFileServingTests.write(Self.hideSecret, into: settings)
            configuration.withLockedValue { $0 = settings }
        }) { client in
            let settings = try #require(configuration.withLockedValue { $0 })
            #expect(try await Self.shown(client) == ["name"])

            let file = URL(fileURLWithPath: settings.dataDirectory).appendingPathComponent("shop.model.yaml")
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: file.path)
            _ = try await Administration.applyModelFile(Self.hideName, path: "edited.yaml", to: "shop", settings, logger: TestDatabases.logger)
            #expect(try await client.send(.post, "/admin/services/reload").status == .ok)
            #expect(try await Self.shown(client) == ["secret"], "the applied model wins over the older file")

            // Editing the file makes it the newest model again.
            try "tables: {}\n".write(to: file, atomically: true, encoding: .utf8)
            #expect(try await client.send(.post, "/admin/services/reload").status == .ok)
            #expect(try await Self.shown(client) == ["name", "secret"])
            let stored = try await Administration.modelFile(of: "shop", settings, logger: TestDatabases.logger)
            #expect(stored.contains("secret") && !stored.contains("hidden: true"), "\(stored)")
        }
    }

    @Test("--apply refuses a model that does not fit, naming the file and line, and stores nothing", arguments: Backend.allCases)
    func applyRefused(_ backend: Backend) async throws {
        let configuration = NIOLockedValueBox<StrataConfiguration?>(nil)
        try await withServer(backend, services: [Self.shop], configure: { settings in
            configuration.withLockedValue { $0 = settings }
        }) { client in
            let settings = try #require(configuration.withLockedValue { $0 })
            let bad = "tables:\n  customer:\n    columns:\n      nosuch: { hidden: true }\n"
            do {
                _ = try await Administration.applyModelFile(bad, path: "bad.yaml", to: "shop", settings, logger: TestDatabases.logger)
                Issue.record("a model naming a missing column was stored")
            } catch let error as ModelFileError {
                #expect(error.description.hasPrefix("bad.yaml:4") && error.description.contains("nosuch"), "\(error)")
            }
            #expect(try await client.send(.post, "/admin/services/reload").status == .ok)
            #expect(try await Self.shown(client) == ["name", "secret"])
            await #expect(throws: ODataError.self) {
                _ = try await Administration.applyModelFile(Self.hideName, path: "x.yaml", to: "nosuch", settings, logger: TestDatabases.logger)
            }
            #expect(try await Administration.removeModelFile(of: "shop", settings, logger: TestDatabases.logger) == false)
        }
    }
}
