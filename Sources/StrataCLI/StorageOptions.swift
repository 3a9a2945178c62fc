import ArgumentParser
import Foundation
import Logging
import StrataCore
import StrataServer

/// Where Strata's data lives: the options `serve` and the administration commands share, so that
/// `strata user add` works on exactly the data a `strata serve` with the same options serves.
struct StorageOptions: ParsableArguments {
    @Option(name: .customLong("data"), help: "Directory for SQLite services and Strata's own data. (env: STRATA_DATA, default: ./strata-data)")
    var dataDirectory: String?

    @Option(help: "A SQLite file to serve as one service, or postgres://user:password@host:5432/database (postgres://user@/database?host=/socket/directory for a Unix socket). (env: STRATA_DATABASE)")
    var database: String?

    /// Applies the options (and `STRATA_DATA`, `STRATA_DATABASE`, `STRATA_PASSWORD_HASH_COST`) to a configuration.
    func apply(to configuration: inout StrataConfiguration) throws {
        let environment = ProcessInfo.processInfo.environment
        configuration.dataDirectory = dataDirectory ?? environment["STRATA_DATA"] ?? configuration.dataDirectory
        if let database = database ?? environment["STRATA_DATABASE"] {
            do {
                configuration.database = try DatabaseLocation.parse(database)
            } catch {
                throw ValidationError("\(error)")
            }
        }
        if let cost = environment["STRATA_PASSWORD_HASH_COST"] {
            guard let value = Int(cost), (4...31).contains(value) else {
                throw ValidationError("STRATA_PASSWORD_HASH_COST must be a number from 4 to 31, not \(cost)")
            }
            configuration.auth.passwordHashCost = value
        }
    }

    /// Runs `body` with the system database of these options open.
    func administer<T: Sendable>(_ body: @Sendable (Administration) async throws -> T) async throws -> T {
        var configuration = StrataConfiguration()
        try apply(to: &configuration)
        var logger = Logger(label: "strata", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .warning
        do {
            return try await Administration.with(configuration, logger: logger, body)
        } catch let error as ODataError {
            // Refusals carry messages meant for people ("There is no account named 'x'."); show only those.
            throw CommandFailure(error.message)
        } catch let error as ConfigurationError {
            throw CommandFailure(error.description)
        }
    }
}

/// A refused command: ArgumentParser prints "Error: " and the message, without the usage text
/// (which `ValidationError` adds), and exits with status 1.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Reads a password from standard input (`--password-stdin`), so that it never appears in the
/// process list or the shell history. One trailing newline is removed.
enum PasswordInput {
    static func read() throws -> String {
        let data = FileHandle.standardInput.readDataToEndOfFile()
        guard var text = String(data: data, encoding: .utf8) else {
            throw ValidationError("the password on standard input is not UTF-8")
        }
        if text.hasSuffix("\r\n") { text.removeLast(2) } else if text.hasSuffix("\n") { text.removeLast() }
        guard !text.isEmpty else { throw ValidationError("no password on standard input; pipe it in, e.g. `printf %s \"$PW\" | strata user add …`") }
        return text
    }
}
