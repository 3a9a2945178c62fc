import Foundation
import StrataCore

/// Files in a Strata server's blob containers: upload from data or a file, download to data or a
/// file, with progress; list, delete, conditional reads and writes.
///
/// ```swift
/// let blobs = BlobClient(serverURL: URL(string: "http://127.0.0.1:8080")!,
///                        configuration: ConnectionConfiguration(authenticator: auth))
/// let uploaded = try await blobs.upload(fileAt: photo, to: "speakers", as: "BTubalinal.jpg")
/// let picture = try await blobs.download("speakers", "BTubalinal.jpg")
/// ```
///
/// Requests go through a ``Connection``, so its observers, event stream, ``Connection/lastExchange``
/// and authenticator work for blobs as for data services. File transfers stream: an upload is read
/// from disk as it is sent and a download is written to disk as it arrives, so neither holds the
/// whole file in memory.
///
/// Every failure is a ``StrataError``: ``StrataError/Kind/notFound`` for a missing container or
/// blob, ``StrataError/Kind/preconditionFailed`` for a refused condition, ``StrataError/Kind/unauthorized``
/// or ``StrataError/Kind/forbidden`` without rights, `413` (``StrataError/Kind/http``) for a blob
/// over the server's size limit.
public struct BlobClient: Sendable {
    /// The connection requests go through; its base URL is the server root.
    public let connection: Connection

    /// A client on an existing connection whose base URL is the server root (`http://host:8080/`).
    public init(connection: Connection) {
        self.connection = connection
    }

    /// A client with a connection of its own to the server at `serverURL`.
    public init(serverURL: URL, configuration: ConnectionConfiguration = ConnectionConfiguration()) {
        self.init(connection: Connection(baseURL: serverURL, configuration: configuration))
    }

    // MARK: Uploading

    /// Uploads bytes as a blob, creating or replacing it.
    ///
    /// - Parameters:
    ///   - contentType: the media type to store; when nil the server guesses from the name's
    ///     extension (`.jpg` → `image/jpeg`) or stores `application/octet-stream`.
    ///   - condition: a precondition checked by the server at the moment of writing.
    ///   - progress: called as the body is sent (``TransferProgress/Direction/upload``).
    /// - Returns: the stored blob's properties.
    @discardableResult
    public func upload(_ data: Data, to container: String, as name: String, contentType: String? = nil,
                       condition: BlobWriteCondition = .none,
                       progress: (@Sendable (TransferProgress) -> Void)? = nil) async throws(StrataError) -> BlobProperties {
        try await upload(StrataRequest(.put, path(container, name), headers: headers(contentType, condition), body: data),
                         name: name, progress: progress)
    }

    /// Uploads a file as a blob, reading it from disk as it is sent.
    ///
    /// Parameters as for ``upload(_:to:as:contentType:condition:progress:)``. Throws
    /// ``StrataError/Kind/invalidRequest`` when the file cannot be read.
    @discardableResult
    public func upload(fileAt file: URL, to container: String, as name: String, contentType: String? = nil,
                       condition: BlobWriteCondition = .none,
                       progress: (@Sendable (TransferProgress) -> Void)? = nil) async throws(StrataError) -> BlobProperties {
        try await upload(StrataRequest(.put, path(container, name), headers: headers(contentType, condition), bodyFile: file),
                         name: name, progress: progress)
    }

    private func upload(_ request: StrataRequest, name: String, progress: (@Sendable (TransferProgress) -> Void)?) async throws(StrataError) -> BlobProperties {
        let response = try await connection.send(request, progress: progress).requireSuccess()
        guard let properties = BlobProperties(json: try response.json()) else {
            throw StrataError(.invalidResponse, status: response.status, method: .put, url: response.url,
                              message: "The upload's answer does not describe the blob: \(response.text.prefix(200))", response: response)
        }
        return properties
    }

    private func headers(_ contentType: String?, _ condition: BlobWriteCondition) -> StrataHeaders {
        var headers = condition.headers
        headers["Content-Type"] = contentType
        return headers
    }

    // MARK: Downloading

    /// Downloads a blob, or a range of it, into memory.
    ///
    /// - Parameters:
    ///   - range: bytes to fetch (`0...1023`); the server clamps a range that runs past the end.
    ///   - progress: called as the body arrives (``TransferProgress/Direction/download``).
    public func download(_ name: String, from container: String, range: ClosedRange<Int64>? = nil,
                         progress: (@Sendable (TransferProgress) -> Void)? = nil) async throws(StrataError) -> BlobData {
        var headers: StrataHeaders = ["Accept": "*/*"]
        if let range { headers["Range"] = "bytes=\(range.lowerBound)-\(range.upperBound)" }
        let response = try await connection.send(StrataRequest(.get, path(container, name), headers: headers), progress: progress).requireSuccess()
        return try blobData(response, name: name)
    }

    /// Downloads a blob only if it differs from the version the caller has (`If-None-Match`).
    ///
    /// - Parameter etag: the ``BlobProperties/etag`` of the copy the caller has.
    /// - Returns: nil when the caller's copy is current (the server answered 304 without a body).
    public func downloadIfModified(_ name: String, from container: String, etag: String,
                                   progress: (@Sendable (TransferProgress) -> Void)? = nil) async throws(StrataError) -> BlobData? {
        let request = StrataRequest(.get, path(container, name), headers: ["Accept": "*/*", "If-None-Match": etag])
        let response = try await connection.send(request, progress: progress)
        if response.status == 304 { return nil }
        return try blobData(try response.requireSuccess(), name: name)
    }

    /// Downloads a blob into a file, writing it as it arrives.
    ///
    /// The file appears (or is replaced) only once the whole blob has arrived; a failed or
    /// cancelled download leaves what was there before.
    @discardableResult
    public func download(_ name: String, from container: String, to file: URL,
                         progress: (@Sendable (TransferProgress) -> Void)? = nil) async throws(StrataError) -> BlobProperties {
        let response = try await connection.download(StrataRequest(.get, path(container, name), headers: ["Accept": "*/*"]), to: file,
                                                      progress: progress).requireSuccess()
        return try properties(response, name: name)
    }

    /// A blob's properties without its content (`HEAD`).
    public func properties(of name: String, in container: String) async throws(StrataError) -> BlobProperties {
        let response = try await connection.send(StrataRequest(.head, path(container, name), headers: ["Accept": "*/*"]))
        guard response.isSuccess else {
            // A HEAD answer has no body to carry the error's message; say what the status means.
            throw StrataError(StrataError.Kind(status: response.status), status: response.status, method: .head, url: response.url,
                              message: response.status == 404 ? "There is no blob '\(name)' in the container \(container)."
                                  : "The server answered \(response.status).", response: response)
        }
        return try properties(response, name: name)
    }

    private func blobData(_ response: StrataResponse, name: String) throws(StrataError) -> BlobData {
        var range: ClosedRange<Int64>?
        if response.status == 206, let header = response.headers["Content-Range"] {
            let bounds = header.dropFirst("bytes ".count).split(separator: "/").first?.split(separator: "-").compactMap { Int64($0) } ?? []
            if bounds.count == 2 { range = bounds[0]...bounds[1] }
        }
        return BlobData(data: response.body, properties: try properties(response, name: name), range: range)
    }

    private func properties(_ response: StrataResponse, name: String) throws(StrataError) -> BlobProperties {
        guard let properties = BlobProperties(name: name, headers: response.headers) else {
            throw StrataError(.invalidResponse, status: response.status, method: response.request?.method, url: response.url,
                              message: "The answer has no ETag, so it does not describe a blob.", response: response)
        }
        return properties
    }

    // MARK: Deleting

    /// Deletes a blob; with an `etag`, only if it is still that version.
    public func delete(_ name: String, from container: String, ifMatch etag: String? = nil) async throws(StrataError) {
        var headers: StrataHeaders = [:]
        headers["If-Match"] = etag
        try await connection.send(StrataRequest(.delete, path(container, name), headers: headers)).requireSuccess()
    }

    /// The connection-relative path of a blob (`blobs/speakers/a%20b/c.jpg`): each byte a path
    /// cannot hold is percent-encoded; `/` in the name stays, as the server reads it.
    func path(_ container: String, _ name: String) -> String {
        "blobs/\(PercentEncoding.encodeQueryValue(container))/\(PercentEncoding.encodeQueryValue(name))"
    }
}
