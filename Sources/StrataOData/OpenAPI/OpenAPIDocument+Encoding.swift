import Foundation
import StrataCore

extension OpenAPIDocument {
    /// The document as JSON, indented for people who open it in a browser, members sorted so that
    /// the same model always gives the same bytes.
    package func json() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(self))
    }

    /// The document as YAML: the JSON tree, written by ``OpenAPIYAML`` (one tree, two spellings).
    package func yaml() throws -> [UInt8] {
        Array(OpenAPIYAML.text(of: try JSONValue.parse(try json())).utf8)
    }
}
