import StrataCore

/// The media type a blob is stored and served with: the upload's `Content-Type`, else one
/// guessed from the name's extension, else `application/octet-stream`.
enum BlobContentType {
    static let fallback = "application/octet-stream"

    /// The stored type for an upload. 400 for a header that is not `type/subtype[; parameters]`:
    /// it would be sent back verbatim with every download.
    static func resolve(header: String?, name: String) throws(ODataError) -> String {
        guard let header = header?.trimmingWhitespace(), !header.isEmpty else {
            return guess(name) ?? fallback
        }
        let essence = header.split(separator: ";", maxSplits: 1).first.map { String($0).trimmingWhitespace() } ?? ""
        let parts = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard header.utf8.count <= 255, parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(isTokenByte) }),
              header.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            throw .badRequest("The Content-Type '\(header.prefix(80))' is not a media type such as image/jpeg (at most 255 characters).",
                              code: "InvalidContentType")
        }
        return header
    }

    /// RFC 9110 token characters.
    private static func isTokenByte(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || "!#$%&'*+-.^_`|~".utf8.contains(c)
    }

    static let byExtension: [String: String] = [
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp",
        "svg": "image/svg+xml", "ico": "image/x-icon", "txt": "text/plain; charset=utf-8", "csv": "text/csv; charset=utf-8",
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
        "json": "application/json", "xml": "application/xml", "pdf": "application/pdf", "zip": "application/zip",
        "gz": "application/gzip", "mp3": "audio/mpeg", "mp4": "video/mp4", "wasm": "application/wasm",
    ]

    static func guess(_ name: String) -> String? {
        let last = name.split(separator: "/").last ?? ""
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return nil }
        return byExtension[last[last.index(after: dot)...].lowercased()]
    }
}
