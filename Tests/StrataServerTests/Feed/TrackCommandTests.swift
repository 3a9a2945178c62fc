import Foundation
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// `strata service track` as a person runs it, against a SQLite data directory: triggers and the
/// log appear in the file, other programs' writes are logged, `--off` removes everything.
@Suite("strata service track")
struct TrackCommandTests {
    @Test("Track two tables, refuse an unknown one, then switch tracking off")
    func trackAndOff() async throws {
        let configuration = try await TestDatabases.shared.configuration(.sqlite)
        let data = configuration.dataDirectory
        defer { try? FileManager.default.removeItem(atPath: data) }
        let file = data + "/cardealer.sqlite"
        func run(_ arguments: String...) async throws -> BlobCommandTests.Run {
            let arguments = Array(arguments)
            return try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread {
                    continuation.resume(with: Result { try BlobCommandTests.strata(arguments, environment: [:], input: nil, directory: data) })
                }
            }
        }
        func triggers() async throws -> [String] {
            try await PythonSQLite.query(file, "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name").compactMap { $0.first?.stringValue }
        }

        // The demo tracks every table of cardealer (its model file's `track: all`): start from none.
        let untracked = try await run("service", "track", "cardealer", "--off", "--data", data)
        #expect(untracked.status == 0, "\(untracked.errors)")
        #expect(try await triggers().isEmpty)

        let tracked = try await run("service", "track", "cardealer", "--tables", "Car,Person", "--data", data)
        #expect(tracked.status == 0, "\(tracked.errors)")
        #expect(tracked.output.contains("The service cardealer tracks: Car, Person."), "\(tracked.output)")
        let made = try await triggers()
        #expect(made == ["strata_track_Car_d", "strata_track_Car_i", "strata_track_Car_u",
                         "strata_track_Person_d", "strata_track_Person_i", "strata_track_Person_u"])
        // Another program (Python's own SQLite, without Strata's functions) writes; the log has it.
        try await PythonSQLite.execute(file, #"INSERT INTO "Car" ("make", "model") VALUES ('Lada', 'Niva')"#)
        let logged = try await PythonSQLite.query(file, "SELECT tbl, op, txn FROM _strata_changes")
        #expect(logged.count == 1 && logged.first?.first?.stringValue == "Car" && logged.first?[2] == .null, "\(logged)")
        // The model shows it.
        let model = try await run("service", "model", "cardealer", "--data", data)
        #expect(model.output.contains("  Car:\n    name: Car\n    track: true\n"), "\(model.output)")

        let unknown = try await run("service", "track", "cardealer", "--tables", "Cars", "--data", data)
        #expect(unknown.status != 0)
        #expect(unknown.errors.contains("no table 'Cars'") && unknown.errors.contains("PersonCar"), "\(unknown.errors)")

        let some = try await run("service", "track", "cardealer", "--tables", "Person", "--off", "--data", data)
        #expect(some.output.contains("tracks: Car."), "\(some.output)")
        #expect(try await triggers().count == 3)

        let off = try await run("service", "track", "cardealer", "--off", "--data", data)
        #expect(off.status == 0, "\(off.errors)")
        #expect(off.output.contains("The service cardealer tracks no table."), "\(off.output)")
        #expect(try await triggers().isEmpty)
        let leftover = try await PythonSQLite.query(file, "SELECT name FROM sqlite_master WHERE name LIKE '\\_strata%' ESCAPE '\\'")
        #expect(leftover.isEmpty)

        let all = try await run("service", "track", "cardealer", "--data", data)
        #expect(all.output.contains("tracks: Car, Maintenance, Person, PersonCar, PersonCarMaintenance."), "\(all.output)")
        let allModel = try await run("service", "model", "cardealer", "--data", data)
        #expect(allModel.output.contains("\ntrack: all\n"), "\(allModel.output)")
    }
}
