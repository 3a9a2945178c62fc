import Foundation
import Logging
import StrataCore
import StrataServer
import StrataStorage

/// What `strata demo-data` is asked to create.
public struct ScaledDemoDataOptions: Sendable {
    /// The number of people; there are twice as many cars and ownerships, and as many maintenance records.
    public var scale: Int
    /// The service's name (a SQLite file in the data directory, or a PostgreSQL schema).
    public var service: String
    /// Directory for SQLite services and Strata's own data (as `strata serve --data`).
    public var dataDirectory: String
    /// A PostgreSQL database, or a SQLite file whose name names the service (as `strata serve --database`).
    public var database: DatabaseLocation?
    /// The pseudo-random generator's starting value: the same value and scale give the same rows.
    public var seed: UInt64

    /// Options for a service of `scale` people, by default `cardealer` on SQLite in `./strata-data`.
    public init(scale: Int, service: String = "cardealer", dataDirectory: String = "./strata-data",
                database: DatabaseLocation? = nil, seed: UInt64 = ScaledDemoData.defaultSeed) {
        self.scale = scale
        self.service = service
        self.dataDirectory = dataDirectory
        self.database = database
        self.seed = seed
    }
}

/// What `strata demo-data` created.
public struct ScaledDemoDataSummary: Sendable, CustomStringConvertible {
    /// The service's name.
    public var service: String
    /// Rows per table, in the order they were loaded.
    public var rows: [(table: String, count: Int)]
    /// How long creating and filling it took.
    public var seconds: Double
    /// The SQLite file, or the PostgreSQL database and schema.
    public var location: String

    /// `Created cardealer in …: 100 Person, … in 0.4 s`.
    public var description: String {
        let counts = rows.map { "\($0.count) \($0.table)" }.joined(separator: ", ")
        return "Created \(service) in \(location): \(counts) in \(String(format: "%.1f", seconds)) s"
    }
}

/// A CarDealer service at any scale, for benchmarks and for trying Strata on more than a few hundred rows.
///
/// The schema is the demo's own (`SQL/cardealer/schema.sql`), created like every service; the rows are generated here instead of read from `data.sql`:
///
/// | table | rows | |
/// |---|---|---|
/// | `Person` | scale | names drawn from weighted lists, 10% without `ssn` |
/// | `Car` | 2 × scale | make and model from the demo's list, 5% without `manufactureDate` |
/// | `PersonCar` | 2 × scale | car *n* belongs to one person drawn at random |
/// | `Maintenance` | 22 | the demo's kinds of work and their prices |
/// | `PersonCarMaintenance` | scale | work done on an ownership, with cost, mileage and sometimes notes |
///
/// Every value comes from a SplitMix64 generator with a fixed seed, so the same scale gives the same
/// rows on every machine and on both databases. Rows are loaded in one transaction by multi-row
/// `INSERT … VALUES` statements of a few hundred rows, every value bound.
///
/// One index is added beyond the demo's schema, for the benchmarks' `$filter` + `$orderby` scenario
/// on an indexed column: `IX_Person_lastName` on `Person(lastName, personID)` (with `COLLATE "C"` on
/// PostgreSQL, the collation Strata orders strings by). `firstName` stays without an index, for the
/// same scenario on a column without one. Both databases are analyzed after loading.
public enum ScaledDemoData {
    /// The generator's starting value that `strata demo-data` uses unless told otherwise, so that benchmarks compare the same rows.
    public static let defaultSeed: UInt64 = 0x000C_A4DE_A1E4_0100

    /// Creates the service and fills it. Fails if a service of that name exists already.
    public static func create(_ options: ScaledDemoDataOptions, logger: Logger) async throws -> ScaledDemoDataSummary {
        guard options.scale >= 1 else { throw ConfigurationError("--scale must be at least 1") }
        let dataDirectory = URL(fileURLWithPath: options.dataDirectory, isDirectory: true)
        switch options.database {
        case nil:
            return try await ProvisioningTarget.with(dataDirectory: dataDirectory, postgres: nil, logger: logger) { target in
                try await fill(options, target, location: dataDirectory.appendingPathComponent("\(options.service).sqlite").path)
            }
        case .sqliteFile(let path):
            // The file's name is the service's name, as when `strata serve --database FILE` serves it.
            let file = URL(fileURLWithPath: path)
            guard file.pathExtension == "sqlite" else {
                throw ConfigurationError("--database FILE must end in .sqlite: its name without the extension is the service's name")
            }
            var named = options
            named.service = file.deletingPathExtension().lastPathComponent
            return try await ProvisioningTarget.with(dataDirectory: file.deletingLastPathComponent(), postgres: nil, logger: logger) { [named] target in
                try await fill(named, target, location: file.path)
            }
        case .postgres(let location):
            return try await ProvisioningTarget.with(dataDirectory: dataDirectory, postgres: location, logger: logger) { target in
                try await fill(options, target, location: "\(location) schema \(options.service)")
            }
        }
    }

    private static func fill(_ options: ScaledDemoDataOptions, _ target: ProvisioningTarget, location: String) async throws -> ScaledDemoDataSummary {
        guard ProvisioningTarget.isValidServiceName(options.service) else {
            throw ConfigurationError("\(options.service) cannot be a service name")
        }
        let started = ContinuousClock.now
        let files = try DemoFiles(service: "cardealer", dialect: target.dialect)
        guard try await target.createService(options.service, scripts: [files.schema]) else {
            throw ConfigurationError("the service \(options.service) exists already in \(location); remove it first")
        }
        let (scale, seed) = (options.scale, options.seed)
        let rows = try await target.load(into: options.service) { loader in
            var generator = CarDealerRows(scale: scale, seed: seed)
            let counts = try await generator.load(into: &loader)
            try await loader.flush()
            try await loader.createIndex("IX_Person_lastName", on: "Person", columns: [.text("lastName"), .other("personID")])
            try await loader.finish(analyzing: counts.map { $0.table })
            return counts
        }
        try await target.saveSettings(files.settings, of: options.service)
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        return ScaledDemoDataSummary(service: options.service, rows: rows, seconds: seconds, location: location)
    }
}
