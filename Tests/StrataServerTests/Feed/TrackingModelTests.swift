import Logging
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import StrataSQL
import Testing

/// `track` in model files (docs/MODEL-FILES.md): read, checked, printed back, and turned into the
/// tables and columns the triggers log.
@Suite("Model files: track")
struct TrackingModelTests {
    @Test("A wrong track is refused at its line, a view by name", arguments: [
        ("tables:\n  Invoices:\n    track: true\n", 3, "Invoices is a view"),
        ("track: some\n", 1, "'all'"),
        ("tables:\n  Orders:\n    track: maybe\n", 3, "true or false"),
    ] as [(String, Int, String)])
    func refusals(_ yaml: String, _ line: Int, _ fragment: String) throws {
        do {
            _ = try ModelFileCheckTests.check(yaml)
            Issue.record("accepted: \(yaml)")
        } catch let error as ModelFileError {
            #expect(error.line == line, "\(error)")
            #expect(error.message.contains(fragment), "\(error)")
        }
    }

    private func loaded(_ yaml: String) throws -> ServiceLoader.Loaded {
        let file = try ModelFile(yaml: yaml, path: "shop.model.yaml")
        let catalog = try file.apply(to: ModelFileCheckTests.catalog, dialect: .sqlite)
        let built = try ModelBuilder(serviceName: "shop", namespace: "Shop", logger: Logger(label: "test")).build(catalog)
        return ServiceLoader.Loaded(settings: ServiceSettings(), built: built, maxProtocolVersion: .v2, original: ModelFileCheckTests.catalog,
                                    catalog: catalog, modelFile: file)
    }

    @Test("track: all tracks every table (no view), with keys and foreign-key links; the text reads back the same")
    func all() throws {
        let model = try loaded("track: all\n")
        #expect(model.trackedTables == ["Order Details", "Orders"])
        #expect(model.captureTables == [
            CaptureTable(name: "Order Details", key: ["OrderID", "ProductID"], links: ["OrderID"]),
            CaptureTable(name: "Orders", key: ["OrderID"], links: []),
        ])
        #expect(model.trackedColumnTypes["Order Details"]?["ProductID"] == .int32)
        let text = model.modelFileText(service: "shop")
        #expect(text.contains("\ntrack: all\ntables:\n"))
        #expect(try loaded(text).trackedTables == model.trackedTables)
    }

    @Test("track: true on one table tracks that one; printed on it")
    func one() throws {
        let model = try loaded("tables:\n  Orders:\n    track: true\n")
        #expect(model.trackedTables == ["Orders"])
        let text = model.modelFileText(service: "shop")
        #expect(text.contains("  Orders:\n    name: Orders\n    track: true\n"))
        #expect(!text.contains("track: all"))
        #expect(try loaded(text).trackedTables == ["Orders"])
        #expect(try loaded("tables:\n  Orders:\n    track: false\n").trackedTables.isEmpty)
        #expect(try loaded("").trackedTables.isEmpty)
    }

    @Test("PostgreSQL trigger functions have names within 63 bytes, distinct for long table names")
    func longFunctionNames() {
        let sql = ChangeCaptureSQL(dialect: .postgres, service: "cardealer", schema: "cardealer")
        #expect(sql.function(of: "Car").name == "cardealer.Car")
        let long = String(repeating: "x", count: 60)
        let first = sql.function(of: long + "_one").name, second = sql.function(of: long + "_two").name
        #expect(first.utf8.count <= 63 && second.utf8.count <= 63)
        #expect(first != second && first.hasPrefix("cardealer.xxx"))
        #expect(sql.function(of: long + "_one").name == first, "stable")
    }
}
