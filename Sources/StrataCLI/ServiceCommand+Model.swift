import ArgumentParser
import Foundation
import Logging
import StrataClient
import StrataServer

extension ServiceCommand {
    /// `strata service model NAME`: the model being served, as a model file to start from.
    struct Model: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a service's model as a model file.",
            discussion: """
                Prints what a server with the same --data and --database serves for the service: its \
                catalog as its model file (if any) shapes it, with every table, column, key and \
                relationship. Save it as <data directory>/NAME.model.yaml, edit it, and apply it with \
                `strata service reload`. docs/MODEL-FILES.md describes the settings.

                  strata service model northwind > strata-data/northwind.model.yaml
                """)

        @Argument(help: "The service.") var name: String
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let configuration = try storage.configuration(environment: ProcessInfo.processInfo.environment)
            var logger = Logger(label: "strata", factory: { StreamLogHandler.standardError(label: $0) })
            logger.logLevel = .error
            do {
                print(try await Administration.modelFile(of: name, configuration, logger: logger), terminator: "")
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
            abstract: "Make a running server read its services' catalogs and model files again.",
            discussion: """
                Asks the server (POST /admin/services/reload, as an account with the admin role: sign \
                in first with `strata login`). A model file that does not fit its service is refused \
                with the file, line and reason, and that service stays as it was.

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
