import ArgumentParser
import Foundation
import Logging
import StrataClient
import StrataServer
import StrataOData
import StrataStorage

extension ServiceCommand {
    /// `strata service track NAME [--tables A,B] [--off]`: change tracking on or off.
    struct Track: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Track a service's changes (for delta links and the change feed), or stop.",
            discussion: """
                Edits the service's model file (`track: all`, or `track: true` on each table) and applies \
                it as `strata service model NAME --apply` does: the triggers and the change log are \
                created or dropped now, in the service's database. Without --tables, every table is \
                tracked; --off with --tables stops tracking those, --off alone stops all and drops the \
                log. Servers on a PostgreSQL system database apply it at once, a server on SQLite after \
                `strata service reload`. docs/CHANGE-TRACKING.md describes what is recorded.

                  strata service track cardealer --tables Car,Dealer
                  strata service track cardealer --off
                """)

        @Argument(help: "The service.") var name: String
        @Option(help: "Tables (entity set or table names), comma-separated; default: every table.") var tables: String?
        @Flag(help: "Stop tracking (the given tables, or all).") var off = false
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let configuration = try storage.configuration(environment: ProcessInfo.processInfo.environment)
            var logger = Logger(label: "strata", factory: { StreamLogHandler.standardError(label: $0) })
            logger.logLevel = .error
            let names = tables.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
            if let names, names.isEmpty { throw ValidationError("--tables names no table: give them as A,B.") }
            do {
                let tracked = try await Administration.track(name, tables: names, off: off, configuration, logger: logger)
                print(tracked.isEmpty ? "The service \(name) tracks no table." : "The service \(name) tracks: \(tracked.joined(separator: ", ")).")
                // Servers on a PostgreSQL system database hear of the change at once; one on SQLite
                // files keeps serving the model it loaded until it is told.
                if case .postgres? = configuration.systemDatabase ?? configuration.database {
                    print("Servers on this database apply it now.")
                } else {
                    print("A server already running on \(configuration.dataDirectory) keeps its old model until `strata service reload \(name)` (or a restart).")
                }
            } catch let error as ModelFileError {
                throw CommandFailure(error.description)
            } catch let error as ODataError {
                throw CommandFailure(error.message)
            }
        }
    }
}
