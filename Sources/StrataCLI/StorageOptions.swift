import ArgumentParser
import Foundation
import Logging
import StrataCore
import StrataServer
import StrataStorage

/// Where Strata's data lives: the options `serve` and the administration commands share, so that
/// `strata user add` works on exactly the data a `strata serve` with the same options serves.
/// They are rows of `serve`'s option table, with the same flags, variables and checks.
struct StorageOptions: ParsableArguments {
    @Option(name: ServeOptions.data.name, help: ServeOptions.data.help) var data: String?
    @Option(name: ServeOptions.database.name, help: ServeOptions.database.help) var database: String?
    @Option(name: ServeOptions.systemDatabase.name, help: ServeOptions.systemDatabase.help) var systemDatabase: String?

    /// The configuration these options (and `STRATA_DATA`, `STRATA_DATABASE`, `STRATA_SYSTEM_DATABASE`,
    /// `STRATA_PASSWORD_HASH_COST`) describe; `adjust` reads a command's own options into it.
    func configuration(environment: [String: String], adjust: (inout ServeSetup) throws -> Void = { _ in }) throws -> StrataConfiguration {
        var setup = ServeSetup()
        try ServeOptions.data.resolve(given: data, environment: environment, into: &setup)
        try ServeOptions.database.resolve(given: database, environment: environment, into: &setup)
        try ServeOptions.systemDatabase.resolve(given: systemDatabase, environment: environment, into: &setup)
        try ServeOptions.passwordHashCost.resolve(given: nil, environment: environment, into: &setup)
        try adjust(&setup)
        return setup.configuration
    }

    /// Runs `body` with the system database of these options open.
    func administer<T: Sendable>(
        adjust: (inout ServeSetup) throws -> Void = { _ in }, _ body: @Sendable (Administration) async throws -> T
    ) async throws -> T {
        let configuration = try configuration(environment: ProcessInfo.processInfo.environment, adjust: adjust)
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
