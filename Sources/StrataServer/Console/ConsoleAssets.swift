import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import StrataCore
import StrataStorage

/// The console's files — one HTML page, its style sheet and ES modules — read once from the
/// target's resources (`Console/Resources`) and served from memory with the headers that make the
/// page as hard to misuse as the API: a Content-Security-Policy without inline script or other
/// hosts, no framing, no MIME sniffing, no referrer.
///
/// Hand-written ES modules, no build step: the browser loads exactly the files in the repository,
/// and the console calls the same public APIs as any client, so it needs no server rendering.
struct ConsoleAssets: Sendable {
    struct Asset: Sendable {
        var bytes: [UInt8]
        var contentType: String
        var etag: String
    }

    let assets: [String: Asset]

    /// The policy every console response carries: scripts, styles and requests from this origin
    /// only, nothing inline, never inside a frame.
    static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        + "img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    static let contentTypes = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
        "svg": "image/svg+xml", "png": "image/png",
    ]

    /// The files of the bundled `Resources` folder; empty when the resources are missing (a binary
    /// copied without its `strata_StrataServer.resources` folder), which ``response(for:)`` reports.
    static let bundled = ConsoleAssets(directory: Bundle.module.url(forResource: "Resources", withExtension: nil))

    /// The files to serve now: read again on every request from `STRATA_CONSOLE_DIR` when it is
    /// set (for working on the console: edit a file, reload the page, no rebuild), else ``bundled``.
    static func current(environment: [String: String] = ProcessInfo.processInfo.environment) -> ConsoleAssets {
        guard let directory = environment["STRATA_CONSOLE_DIR"], !directory.isEmpty else { return bundled }
        return ConsoleAssets(directory: URL(fileURLWithPath: directory))
    }

    init(directory: URL?) {
        var assets: [String: Asset] = [:]
        if let directory, let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) {
            for name in names {
                guard let type = Self.contentTypes[(name as NSString).pathExtension],
                      let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else { continue }
                let digest = SHA256.hash(data: data).prefix(12)
                assets[name] = Asset(bytes: Array(data), contentType: type, etag: "\"" + Hex.lowercase(Array(digest)) + "\"")
            }
        }
        self.assets = assets
    }

    /// The file `name` (`index.html` for the page itself), or 404; 304 when the client's copy is current.
    func response(for name: String, ifNoneMatch: String?) throws(ODataError) -> Response {
        guard let asset = assets[name] else {
            if assets.isEmpty {
                throw ODataError(status: 404, code: "NotFound",
                                 message: "The console's files are not next to this strata binary: copy its strata_StrataServer.resources folder beside it.")
            }
            throw ODataError(status: 404, code: "NotFound", message: "The console has no file \(name.prefix(80)).")
        }
        var headers = Self.headers
        headers[.contentType] = asset.contentType
        headers[.eTag] = asset.etag
        headers[.cacheControl] = "no-cache"
        if ifNoneMatch == asset.etag {
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }

    static let headers: HTTPFields = [
        HTTPField.Name("Content-Security-Policy")!: contentSecurityPolicy,
        HTTPField.Name("X-Frame-Options")!: "DENY",
        HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        HTTPField.Name("Referrer-Policy")!: "no-referrer",
    ]
}
