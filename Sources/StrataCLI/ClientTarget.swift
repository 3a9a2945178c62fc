import Foundation
import StrataClient
import StrataCore

/// Where a client command points: a server root, a service on it, and a resource path with options.
///
/// `cardealer/Person(1)/PersonCar?$top=3` resolves against the server given with `--server`;
/// `http://host:8080/cardealer/Person` names the server itself. The first path segment is the service.
struct ClientTarget {
    var serverURL: URL
    var serviceName: String
    var path: ResourcePath
    var options: QueryOptions

    init(_ text: String, server: String) throws {
        var rest = Substring(text)
        let lowered = text.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            guard let schemeEnd = rest.range(of: "://") else { throw CLIError("cannot read the URL \(text)") }
            let afterScheme = rest[schemeEnd.upperBound...]
            let hostEnd = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
            guard let url = URL(string: String(rest[..<hostEnd]) + "/"), url.host != nil else {
                throw CLIError("cannot read the server in \(text)")
            }
            serverURL = url
            rest = afterScheme[hostEnd...]
        } else {
            guard let url = URL(string: server.hasSuffix("/") ? server : server + "/"), url.host != nil else {
                throw CLIError("--server \(server) is not a URL such as http://127.0.0.1:8080")
            }
            serverURL = url
        }
        while rest.first == "/" { rest = rest.dropFirst() }
        let question = rest.firstIndex(of: "?")
        let rawPath = question.map { rest[..<$0] } ?? rest
        let rawQuery = question.map { rest[rest.index(after: $0)...] } ?? ""
        let slash = rawPath.firstIndex(of: "/") ?? rawPath.endIndex
        serviceName = String(rawPath[..<slash])
        guard !serviceName.isEmpty else {
            throw CLIError("name a service and a resource, for example cardealer/Person")
        }
        let resource = slash < rawPath.endIndex ? rawPath[rawPath.index(after: slash)...] : ""
        do {
            path = try ResourcePath.parse(resource)
            options = try QueryOptions(parsing: rawQuery)
        } catch {
            throw CLIError(error.message)
        }
    }

    /// The last path segment when it is a system resource that is not JSON: `$count`, `$value`, `$metadata`.
    var rawResource: String? {
        guard let last = path.segments.last?.name, ["$count", "$value", "$metadata"].contains(last) else { return nil }
        return last
    }
}

/// A mistake in what the user typed, shown without a stack of context.
struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
