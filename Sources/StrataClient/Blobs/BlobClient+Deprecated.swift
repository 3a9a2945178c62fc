import Foundation

/// The first names of the blob methods, which put the container first without labels. They read
/// as the rest of the API does now: the blob, then where it is (`download("a.jpg", from: "speakers")`).
extension BlobClient {
    @available(*, deprecated, renamed: "download(_:from:range:progress:)")
    public func download(_ container: String, _ name: String, range: ClosedRange<Int64>? = nil,
                         progress: (@Sendable (TransferProgress) -> Void)? = nil) async throws(StrataError) -> BlobData {
        try await download(name, from: container, range: range, progress: progress)
    }

    @available(*, deprecated, renamed: "downloadIfModified(_:from:etag:progress:)")
    public func downloadIfModified(_ container: String, _ name: String, etag: String,
                                   progress: (@Sendable (TransferProgress) -> Void)? = nil) async throws(StrataError) -> BlobData? {
        try await downloadIfModified(name, from: container, etag: etag, progress: progress)
    }

    @available(*, deprecated, renamed: "download(_:from:to:progress:)")
    @discardableResult
    public func download(_ container: String, _ name: String, to file: URL,
                         progress: (@Sendable (TransferProgress) -> Void)? = nil) async throws(StrataError) -> BlobProperties {
        try await download(name, from: container, to: file, progress: progress)
    }

    @available(*, deprecated, renamed: "properties(of:in:)")
    public func properties(_ container: String, _ name: String) async throws(StrataError) -> BlobProperties {
        try await properties(of: name, in: container)
    }

    @available(*, deprecated, renamed: "delete(_:from:ifMatch:)")
    public func delete(_ container: String, _ name: String, ifMatch etag: String? = nil) async throws(StrataError) {
        try await delete(name, from: container, ifMatch: etag)
    }

    @available(*, deprecated, renamed: "blobs(in:prefix:limit:marker:)")
    public func list(_ container: String, prefix: String = "", limit: Int? = nil, marker: String? = nil) async throws(StrataError) -> BlobPage {
        try await blobs(in: container, prefix: prefix, limit: limit, marker: marker)
    }
}
