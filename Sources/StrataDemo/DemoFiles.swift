import Foundation
import StrataCore
import StrataSQL
import StrataServer
import StrataStorage

/// The SQL files and settings of one demo service: `SQL/<service>/schema.sql` rendered for a
/// dialect (``DemoSchema``), `data.sql` (portable), `service.json` (namespace and title), and
/// `model.yaml`, the service's model file, where it has one.
struct DemoFiles {
    var schema: SQLScript
    var data: SQLScript
    var settings: ServiceSettings
    var modelFile: String?

    init(service: String, dialect: SQLDialect) throws {
        let folder = try Self.folder(of: service)
        schema = try SQLScript(contentsOf: folder.appendingPathComponent("schema.sql"), spellings: DemoSchema.spellings(for: dialect))
        data = try SQLScript(contentsOf: folder.appendingPathComponent("data.sql"))
        let json = try JSONValue.parse(Array(Data(contentsOf: folder.appendingPathComponent("service.json"))))
        settings = ServiceSettings(namespace: json["namespace"]?.stringValue, title: json["title"]?.stringValue)
        modelFile = try? String(contentsOf: folder.appendingPathComponent("model.yaml"), encoding: .utf8)
    }

    static func folder(of service: String) throws -> URL {
        guard let root = Bundle.module.url(forResource: "SQL", withExtension: nil) else {
            throw ConfigurationError("the demo SQL files are missing from the Strata bundle")
        }
        return root.appendingPathComponent(service)
    }
}
