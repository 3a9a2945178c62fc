import Foundation
import StrataCore

/// Reads the URLs that appear inside requests — `$links` bodies, deep-insert bindings, `$batch`
/// operations — as a path below the service root.
///
/// Accepted forms: an absolute URL (`http://host/cardealer/Car(5)`), an absolute path
/// (`/cardealer/Car(5)`), a path relative to the service root (`Car(5)`), and inside a `$batch`
/// change set a `$n` reference to an entity an earlier operation created (`$1/PersonCar`).
package struct ServiceRelativeURL {
    let serviceName: String
    let serviceRoot: String
    /// Content-ID → the created entity's path relative to the service root.
    package var contentIDs: [String: String] = [:]

    package init(serviceName: String, serviceRoot: String, contentIDs: [String: String] = [:]) {
        self.serviceName = serviceName
        self.serviceRoot = serviceRoot
        self.contentIDs = contentIDs
    }

    /// The path (percent-encoded, as sent) and the raw query string.
    package func split(_ raw: String) throws(ODataError) -> (path: String, query: String?) {
        var text = Substring(raw.trimmingWhitespace())
        if text.hasPrefix(serviceRoot) {
            text = text.dropFirst(serviceRoot.count)
        } else if let scheme = text.range(of: "://") {
            // This server under another scheme (https before a proxy, http behind it) is still this
            // server; another host is not, and nothing here is sent anywhere else.
            let afterScheme = text[scheme.upperBound...]
            let authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            guard authority.lowercased() == Self.authority(of: serviceRoot) else {
                throw .badRequest("The URL '\(raw.prefix(200))' names another server than this one (\(Self.authority(of: serviceRoot))); write it relative to the service root, as in Car(5).")
            }
            text = afterScheme[authority.endIndex...]
        }
        if text.hasPrefix("/") {
            let prefix = "/" + PercentEncoding.encodePathSegmentName(serviceName) + "/"
            guard text.hasPrefix(prefix) else {
                throw .badRequest("The URL '\(raw.prefix(200))' is not inside the service \(serviceName).")
            }
            text = text.dropFirst(prefix.count)
        }
        var query: String?
        if let mark = text.firstIndex(of: "?") {
            query = String(text[text.index(after: mark)...])
            text = text[..<mark]
        }
        var path = String(text)
        if path.hasPrefix("$"), !path.hasPrefix("$batch"), !path.hasPrefix("$metadata") {
            let end = path.firstIndex(of: "/") ?? path.endIndex
            let id = String(path[path.index(after: path.startIndex)..<end])
            guard let target = contentIDs[id] else {
                throw .badRequest("'$\(id)' names no entity created earlier in this change set; Content-ID references work only inside one change set, after the operation that creates the entity.")
            }
            path = target + path[end...]
        }
        return (path, query)
    }

    /// `host:port` of an absolute URL, lower-cased.
    static func authority(of url: String) -> String {
        guard let scheme = url.range(of: "://") else { return "" }
        return url[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }.lowercased()
    }

    /// A URL that must address one entity, resolved against the model.
    func resolveEntity(_ raw: String, model: ServiceModel) throws(ODataError) -> ResolvedPath {
        let (path, query) = try split(raw)
        guard query == nil || query!.isEmpty else {
            throw .badRequest("The entity reference '\(raw.prefix(200))' cannot carry query options.")
        }
        let resolved = try PathResolver(model: model).resolve(try ResourcePath.parse(Substring(path)))
        guard case .entities = resolved.terminal, !resolved.target.isCollection else {
            throw .badRequest("The URL '\(raw.prefix(200))' does not address a single entity; write it as Set(key).")
        }
        return resolved
    }
}
