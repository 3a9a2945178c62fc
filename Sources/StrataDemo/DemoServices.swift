import Logging
import StrataSQL
import StrataServer

/// The demo services, reproducing the data of the CarDealer, SpeakEasy and hockey samples.
///
/// Each is created from SQL files shipped with Strata (`SQL/<service>/`), applied through the same
/// store operation that creates any service: the schema for the store's dialect, then the portable
/// data. A service that exists already is left as it is, so restarts keep changes.
package struct DemoServices: StartupProvisioner {
    package static let names = ["cardealer", "speakeasy", "hockey"]

    package init() {}

    package func provision(_ target: ProvisioningTarget) async throws {
        for name in Self.names {
            let files = try DemoFiles(service: name, dialect: target.dialect)
            if try await target.createService(name, scripts: [files.schema, files.data]) {
                try await target.saveSettings(files.settings, of: name)
                if let model = files.modelFile { try target.writeModelFile(model, for: name) }
                target.logger.info("Created demo service", metadata: ["service": .string(name)])
            }
        }
    }

    /// The model files the demo writes, by service: for a data directory whose services were
    /// created elsewhere (a copied PostgreSQL database, in the tests).
    package static func modelFiles() throws -> [String: String] {
        var files: [String: String] = [:]
        for name in names {
            if let model = try DemoFiles(service: name, dialect: .sqlite).modelFile { files[name] = model }
        }
        return files
    }
}
