import Foundation
import Logging
import StrataCore
import StrataSQL

/// The demo services of `strata serve --demo`, reproducing the seeds' data.
///
/// Each is created from SQL files shipped with Strata (`Demo/SQL/<service>/`), applied through the
/// same store operation that creates any service: the schema for the store's dialect, then the
/// portable data. A service that exists already is left as it is, so restarts keep changes.
struct DemoServices {
    static let names = ["cardealer", "speakeasy", "hockey"]

    let store: any ServiceStore
    let system: SystemDatabase
    let logger: Logger

    func provision() async throws {
        for name in Self.names {
            let files = try DemoFiles(service: name, dialect: store.dialect)
            if try await store.provision(name, scripts: [files.schema, files.data]) {
                try await system.saveServiceSettings(name, ServiceSettings(namespace: files.namespace, title: files.title))
                logger.info("Created demo service", metadata: ["service": .string(name)])
            }
        }
    }
}

/// The SQL files and settings of one demo service.
struct DemoFiles {
    var schema: SQLScript
    var data: SQLScript
    var namespace: String?
    var title: String?

    init(service: String, dialect: SQLDialect) throws {
        guard let root = Bundle.module.url(forResource: "SQL", withExtension: nil) else {
            throw ConfigurationError("the demo SQL files are missing from the Strata bundle")
        }
        let folder = root.appendingPathComponent(service)
        schema = try SQLScript(contentsOf: folder.appendingPathComponent("schema.\(dialect.rawValue).sql"))
        data = try SQLScript(contentsOf: folder.appendingPathComponent("data.sql"))
        let settings = try JSONValue.parse(Array(Data(contentsOf: folder.appendingPathComponent("service.json"))))
        namespace = settings["namespace"]?.stringValue
        title = settings["title"]?.stringValue
    }
}
