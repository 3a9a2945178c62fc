import ArgumentParser
import Foundation
import Logging
import StrataClient
import StrataServer
import StrataOData

extension ServiceCommand {
    /// `strata service model NAME`: the model being served, as a model file to start from.
    struct Model: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a service's model as a model file, or apply or remove one.",
            discussion: """
                Prints what a server with the same --data and --database serves for the service: its \
                catalog as its model file (if any) shapes it, with every table, column, key and \
                relationship. Edit it and apply it with --apply: the file is checked against the \
                catalog and stored in the system database, where every server on it finds it (servers \
                on a PostgreSQL system database apply it at once; a server on SQLite after \
                `strata service reload`). --remove serves the catalog as it is again. A single server \
                also applies <data directory>/NAME.model.yaml when that file is newer than the stored \
                model. docs/MODEL-FILES.md describes the settings.

                  strata service model northwind > northwind.model.yaml
                  strata service model northwind --apply northwind.model.yaml
                """)

        @Argument(help: "The service.") var name: String
        @Option(help: "A model file to check and store for every server.") var apply: String?
        @Flag(help: "Remove the service's stored model file.") var remove = false
        @OptionGroup var storage: StorageOptions

        func validate() throws {
            if apply != nil && remove { throw ValidationError("Give --apply FILE or --remove, not both.") }
        }

        func run() async throws {
            let configuration = try storage.configuration(environment: ProcessInfo.processInfo.environment)
            var logger = Logger(label: "strata", factory: { StreamLogHandler.standardError(label: $0) })
            logger.logLevel = .error
            do {
                if let apply {
                    let text: String
                    do {
                        text = try String(contentsOfFile: apply, encoding: .utf8)
                    } catch {
                        throw CommandFailure("Cannot read the model file \(apply): \(error.localizedDescription)")
                    }
                    _ = try await Administration.applyModelFile(text, path: apply, to: name, configuration, logger: logger)
                    print("Stored the model file of \(name); servers on this system database apply it.")
                } else if remove {
                    let removed = try await Administration.removeModelFile(of: name, configuration, logger: logger)
                    print(removed ? "Removed the model file of \(name)." : "The service \(name) had no stored model file.")
                } else {
                    print(try await Administration.modelFile(of: name, configuration, logger: logger), terminator: "")
                }
            } catch let error as ModelFileError {
                throw CommandFailure(error.description)
            } catch let error as ODataError {
                throw CommandFailure(error.message)
            }
        }
    }

    /// `strata service reload`: a running server reads its services' catalogs and model files again.
    struct Reload: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make the running servers read their services' catalogs and model files again.",
            discussion: """
                Asks the server (POST /admin/services/reload, as an account with the admin role: sign \
                in first with `strata login`), which tells every other server on its PostgreSQL system \
                database to reload too. A model file that does not fit its service is refused with the \
                file, line and reason, and that service stays as it was.

                  strata service reload --server http://127.0.0.1:8080
                """)

        @OptionGroup var server: BlobServerOptions

        func run() async throws {
            let url = try server.serverURL
            let session = try await Credentials.session(for: url)
            let connection = Connection(baseURL: url, configuration: ConnectionConfiguration(timeout: 120, authenticator: session))
            do {
                let response = try await connection.send(StrataRequest(.post, "admin/services/reload")).requireSuccess()
                print(response.text)
            } catch {
                throw CommandFailure(error.message)
            }
        }
    }
}
