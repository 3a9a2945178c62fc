import Foundation
import StrataCore
import StrataServer

/// The SQL files and settings of one demo service: `SQL/<service>/schema.sql` rendered for a
/// dialect (``DemoSchema``), `data.sql` (portable), and `service.json` (namespace and title).
struct DemoFiles {
    var schema: String
    var data: String
    var settings: ServiceSettings

    init(service: String, dialect: SQLDialectKind) throws {
        let folder = try Self.folder(of: service)
        schema = try DemoSchema.render(String(contentsOf: folder.appendingPathComponent("schema.sql"), encoding: .utf8), for: dialect)
        data = try String(contentsOf: folder.appendingPathComponent("data.sql"), encoding: .utf8)
        let json = try JSONValue.parse(Array(Data(contentsOf: folder.appendingPathComponent("service.json"))))
        settings = ServiceSettings(namespace: json["namespace"]?.stringValue, title: json["title"]?.stringValue)
    }

    static func folder(of service: String) throws -> URL {
        guard let root = Bundle.module.url(forResource: "SQL", withExtension: nil) else {
            throw ConfigurationError("the demo SQL files are missing from the Strata bundle")
        }
        return root.appendingPathComponent(service)
    }
}
