import StrataCore

/// What a `/blobs…` path names: every container, one container, or one blob.
package enum BlobTarget: Sendable, Equatable {
    case root
    case container(String)
    case blob(container: String, name: String)

    package static let prefix = "/blobs"

    /// Reads the raw (percent-encoded) path. Everything after the container is the blob name,
    /// slashes included; each part is percent-decoded once.
    init(rawPath: String) throws(ODataError) {
        guard rawPath.hasPrefix(Self.prefix) else { throw .notFound("Blob paths start with /blobs.") }
        var rest = rawPath.dropFirst(Self.prefix.count)
        guard rest.isEmpty || rest.first == "/" else { throw .notFound("Blob paths start with /blobs/.") }
        rest = rest.dropFirst()
        if rest.isEmpty {
            self = .root
            return
        }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let container = try Self.decode(rest[..<slash], what: "container name")
        try BlobNames.checkContainer(container)
        let rawName = slash < rest.endIndex ? rest[rest.index(after: slash)...] : ""
        if rawName.isEmpty {
            self = .container(container)
            return
        }
        let name = try Self.decode(rawName, what: "blob name")
        try BlobNames.checkBlob(name)
        self = .blob(container: container, name: name)
    }

    private static func decode(_ text: Substring, what: String) throws(ODataError) -> String {
        guard let decoded = PercentEncoding.decode(text) else {
            throw .badRequest("The \(what) in the URL has a malformed %-escape or is not UTF-8.")
        }
        return decoded
    }
}

/// The query string of a blob request, checked against the parameters the request takes, so
/// that a misspelt option (`?acess=public-read`) is refused rather than silently ignored.
struct BlobQuery: Sendable {
    private var values: [String: String] = [:]

    init(rawQuery: String?, allowed: Set<String>) throws(ODataError) {
        for pair in (rawQuery ?? "").split(separator: "&") {
            let equals = pair.firstIndex(of: "=")
            let rawKey = equals.map { pair[..<$0] } ?? pair
            let rawValue = equals.map { pair[pair.index(after: $0)...] } ?? ""
            guard let key = PercentEncoding.decode(rawKey, plusAsSpace: true),
                  let value = PercentEncoding.decode(rawValue, plusAsSpace: true) else {
                throw .badRequest("The query string has a malformed %-escape or is not UTF-8.")
            }
            guard allowed.contains(key) else {
                let known = allowed.isEmpty ? "none" : allowed.sorted().joined(separator: ", ")
                throw .badRequest("Unknown query parameter '\(key.prefix(40))' here; this request takes: \(known).")
            }
            guard values[key] == nil else { throw .badRequest("The query parameter '\(key)' is given twice.") }
            values[key] = value
        }
    }

    subscript(_ key: String) -> String? { values[key] }

    /// `true`/`false` (also `1`/`0`); nil when absent.
    func flag(_ key: String) throws(ODataError) -> Bool? {
        guard let text = values[key] else { return nil }
        switch text.lowercased() {
        case "true", "1", "": return true
        case "false", "0": return false
        default: throw .badRequest("\(key) must be true or false, not '\(text.prefix(20))'.")
        }
    }
}
