import Foundation
import StrataCore
import StrataDemo
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// `strata demo-data`: CarDealer at any scale, the same rows on both databases.
@Suite("Scaled demo data")
struct ScaledDemoDataTests {
    @Test("The same seed and scale give the same rows on SQLite and PostgreSQL; a second run is refused")
    func sameRowsOnBothDatabases() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-scaled-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let sqlite = ScaledDemoDataOptions(scale: 40, service: "fleet", dataDirectory: directory.path)
        let summary = try await ScaledDemoData.create(sqlite, logger: TestDatabases.logger)
        #expect(summary.rows.map(\.count) == [40, 80, 80, 22, 40])
        let sqliteRows = try await Self.people(sqlite)
        #expect(sqliteRows.count == 40)
        await #expect(throws: ConfigurationError.self) { try await ScaledDemoData.create(sqlite, logger: TestDatabases.logger) }

        try await withEmptyPostgresDatabase { configuration, location, _ in
            var postgres = ScaledDemoDataOptions(scale: 40, service: "fleet", dataDirectory: configuration.dataDirectory)
            postgres.database = .postgres(location)
            _ = try await ScaledDemoData.create(postgres, logger: TestDatabases.logger)
            let postgresRows = try await Self.people(postgres)
            // Compared as text: each database hands back ids and times in its own natural type.
            #expect(postgresRows.map { $0.map(Self.text) } == sqliteRows.map { $0.map(Self.text) })
        }
    }

    static func text(_ value: ODataValue) -> String {
        switch value {
        case .int32(let number): return String(number)
        case .int64(let number): return String(number)
        case .dateTime(let time): return time.formatted(dateTimeSeparator: " ")
        default: return value.stringValue ?? "null"
        }
    }

    /// Every person's id, names, ssn and creation time, in id order.
    static func people(_ options: ScaledDemoDataOptions) async throws -> [[ODataValue]] {
        guard case .postgres(let location)? = options.database else {
            return try await ProvisioningTarget.with(dataDirectory: URL(fileURLWithPath: options.dataDirectory), postgres: nil,
                                                     logger: TestDatabases.logger) { target in
                try await target.rows(of: "Person", in: options.service, columns: ["personID", "firstName", "lastName", "ssn", "createDate"],
                                      orderedBy: ["personID"]) ?? []
            }
        }
        return try await ProvisioningTarget.with(dataDirectory: URL(fileURLWithPath: options.dataDirectory), postgres: location,
                                                 logger: TestDatabases.logger) { target in
            try await target.rows(of: "Person", in: options.service, columns: ["personID", "firstName", "lastName", "ssn", "createDate"],
                                  orderedBy: ["personID"]) ?? []
        }
    }
}
