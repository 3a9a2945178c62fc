import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
@testable import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// Keys of views and tables without primary key: a unique index when there is one, else every
/// column, with nulls in such keys read, filtered, paged and addressed as nulls.
@Suite("View keys")
struct ViewKeyTests {
    /// Made by plain SQL: a view whose rows hold nulls in every column but one, and a table without
    /// primary key whose unique index is over a nullable column.
    static let shop = TestService(name: "shop") { _ in
        ["""
        CREATE TABLE "Item" ("itemID" INTEGER NOT NULL PRIMARY KEY, "name" VARCHAR(20) NOT NULL, "price" DECIMAL(10,2), "code" VARCHAR(10));
        INSERT INTO "Item" ("itemID", "name", "price", "code") VALUES (1, 'a', 1.50, 'A1');
        INSERT INTO "Item" ("itemID", "name", "price", "code") VALUES (2, 'b', NULL, NULL);
        INSERT INTO "Item" ("itemID", "name", "price", "code") VALUES (3, 'c', 2.00, 'C3');
        INSERT INTO "Item" ("itemID", "name", "price", "code") VALUES (4, 'd', NULL, NULL);
        INSERT INTO "Item" ("itemID", "name", "price", "code") VALUES (5, 'e', 3.25, NULL);
        CREATE VIEW "Listing" AS SELECT "code", "name", "price" FROM "Item";
        CREATE TABLE "Tags" ("tag" VARCHAR(20), "note" VARCHAR(20));
        CREATE UNIQUE INDEX "UX_Tags_tag" ON "Tags" ("tag");
        INSERT INTO "Tags" ("tag", "note") VALUES ('x', 'one');
        INSERT INTO "Tags" ("tag", "note") VALUES ('y', 'two');
        """]
    }

    /// The entity URIs of a collection, relative to the server.
    static func uris(_ page: TestResponse) -> [String] {
        (page.json["d"]["results"]?.arrayValue ?? []).compactMap {
            $0["__metadata"]["uri"]?.stringValue.map { String($0.dropFirst("http://localhost".count)) }
        }
    }

    @Test("A view's key is every column, declared non-nullable in $metadata; rows with nulls in it are read, filtered and addressed",
          arguments: Backend.allCases)
    func nullsInKeys(_ backend: Backend) async throws {
        try await withServer(backend, services: [Self.shop]) { client in
            let metadata = try await client.get("/shop/$metadata").text
            let listing = metadata.components(separatedBy: "<EntityType ").first { $0.hasPrefix(#"Name="Listing""#) } ?? ""
            #expect(listing.contains(#"<Key><PropertyRef Name="code" /><PropertyRef Name="name" /><PropertyRef Name="price" /></Key>"#),
                    "\(listing)")
            #expect(listing.contains(#"Name="code" Type="Edm.String" Nullable="false""#), "\(listing)")

            let all = try await client.get("/shop/Listing")
            #expect(all.status == .ok, "\(all.text.prefix(300))")
            let uris = Self.uris(all)
            #expect(uris.count == 5)
            let nullRow = try #require(uris.first { $0.contains("name='b'") })
            #expect(nullRow.contains("code=null") && nullRow.contains("price=null"), "\(nullRow)")
            // Every row's URI reads that row back, nulls and all (the prepared read by key compares with =).
            for uri in uris {
                let one = try await client.get(uri)
                #expect(one.status == .ok, "\(uri): \(one.text.prefix(300))")
                #expect(one.json["d"]["__metadata"]["uri"]?.stringValue?.hasSuffix(uri) == true, "\(uri)")
            }
            let b = try await client.get(nullRow + "/name/$value")
            #expect(b.text == "b", "\(b.text.prefix(200))")

            // OData's two-valued logic: a null code is not 'A1'.
            for (filter, count) in [("code%20ne%20'A1'", 4), ("code%20eq%20null", 3), ("price%20ne%202.00M", 4), ("not(code%20eq%20'C3')", 4)] {
                let response = try await client.get("/shop/Listing/$count?$filter=" + filter)
                #expect(response.text == String(count), "\(filter): \(response.text.prefix(300))")
            }
        }
    }

    @Test("Paging through a view visits rows with nulls in its key exactly once", arguments: Backend.allCases)
    func paging(_ backend: Backend) async throws {
        try await withServer(backend, pageSize: 2, services: [Self.shop]) { client in
            for query in ["", "?$orderby=name%20desc", "?$orderby=price"] {
                var names: [String] = []
                var next: String? = "/shop/Listing" + query
                var pages = 0
                while let url = next, pages < 20 {
                    let page = try await client.get(url)
                    #expect(page.status == .ok, "\(url): \(page.text.prefix(300))")
                    names += (page.json["d"]["results"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
                    next = page.json["d"]["__next"]?.stringValue.map { String($0.dropFirst("http://localhost".count)) }
                    pages += 1
                }
                #expect(names.sorted() == ["a", "b", "c", "d", "e"], "\(query): \(names)")
            }
        }
    }

    @Test("A table without primary key is keyed by its unique index; a view without one is logged once with how to declare a key",
          arguments: Backend.allCases)
    func uniqueIndexAndLog(_ backend: Backend) async throws {
        try await PostgresSlots.run(backend) { try await uniqueIndexAndLogBody(backend) }
    }

    private func uniqueIndexAndLogBody(_ backend: Backend) async throws {
        let capture = LogCapture()
        var configuration = try await TestDatabases.shared.configuration(backend)
        try await TestDatabases.shared.provision("shop", backend, into: configuration, scripts: Self.shop.scripts(backend))
        configuration.logLevel = .info
        var logger = Logger(label: "strata-test") { _ in capture }
        logger.logLevel = .info
        let app = try await buildApplication(configuration, logger: logger)
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        try await app.test(.router) { base in
            let client = AdministratorTestClient(base: base)
            let tags = try await client.get("/shop/Tags")
            #expect(Self.uris(tags).sorted() == ["/shop/Tags('x')", "/shop/Tags('y')"], "\(tags.text.prefix(400))")
            #expect(try await client.get("/shop/Tags('y')").json["d"]["note"]?.stringValue == "two")
        }
        let lines = capture.lines.filter { $0.contains("Key of") }
        let listing = lines.filter { $0.contains("view Listing") }
        #expect(listing.count == 1, "\(lines)")
        #expect(listing.first?.contains("declare a key for Listing in its model file") == true, "\(listing)")
        #expect(listing.first?.contains("docs/MODEL-FILES.md") == true)
        #expect(lines.contains { $0.contains("Tags is its unique index (tag)") }, "\(lines)")
    }
}
