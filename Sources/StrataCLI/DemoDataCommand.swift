import ArgumentParser
import Foundation
import Logging
import StrataDemo
import StrataServer
import StrataStorage

struct DemoDataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo-data",
        abstract: "Create a CarDealer service with as many rows as you ask for.",
        discussion: """
            Creates the demo's cardealer schema as a new service and fills it with generated rows: \
            SCALE people, twice as many cars and ownerships (PersonCar), and SCALE maintenance records. \
            The rows are the same on every run and on both databases (a fixed-seed generator), so \
            benchmarks can compare SQLite and PostgreSQL on the same data. It adds one index beyond the \
            demo's schema, IX_Person_lastName on Person(lastName, personID), and leaves firstName without one.

            Examples:
              strata demo-data --scale 100000 --data ./bench-data
              strata demo-data --scale 100000 --database postgres://strata@127.0.0.1:5432/strata

            The service must not exist yet. A running `strata serve` sees it after a restart.
            """)

    @Option(help: "The number of people; cars and ownerships are twice as many.")
    var scale: Int = 100_000

    @Option(help: "The service's name (a SQLite file name or a PostgreSQL schema).")
    var service: String = "cardealer"

    @Option(name: .customLong("data"), help: "Directory for SQLite services and Strata's own data. (env: STRATA_DATA, default: ./strata-data)")
    var dataDirectory: String?

    @Option(help: "A SQLite file (its name names the service) or postgres://user:password@host:5432/database. (env: STRATA_DATABASE)")
    var database: String?

    @Option(help: "The row generator's starting value (random seed).")
    var seed: UInt64 = ScaledDemoData.defaultSeed

    func run() async throws {
        guard scale >= 1 else { throw ValidationError("--scale must be at least 1") }
        let environment = ProcessInfo.processInfo.environment
        var options = ScaledDemoDataOptions(scale: scale, service: service, seed: seed)
        options.dataDirectory = dataDirectory ?? environment["STRATA_DATA"] ?? options.dataDirectory
        if let database = database ?? environment["STRATA_DATABASE"] {
            do {
                options.database = try DatabaseLocation.parse(database)
            } catch {
                throw ValidationError("\(error)")
            }
        }
        var logger = Logger(label: "strata")
        logger.logLevel = .warning
        do {
            let summary = try await ScaledDemoData.create(options, logger: logger)
            print(summary)
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        }
    }
}
