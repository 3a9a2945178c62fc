import Foundation
import StrataCore

extension BlobClient {
    /// The containers the caller may list.
    public func containers() async throws(StrataError) -> [BlobContainerInfo] {
        let response = try await connection.send(StrataRequest(.get, "blobs")).requireSuccess()
        let items = try response.json()["containers"]?.arrayValue ?? []
        return items.compactMap { item in
            guard let name = item["name"]?.stringValue, let access = item["access"]?.stringValue.flatMap(BlobContainerAccess.init(rawValue:))
            else { return nil }
            return BlobContainerInfo(name: name, access: access,
                                     created: item["created"]?.stringValue.flatMap(BlobDates.iso8601) ?? Date(timeIntervalSince1970: 0))
        }
    }

    /// Creates a container (administrators only). Creating one that exists changes only its access.
    public func createContainer(_ name: String, access: BlobContainerAccess = .private) async throws(StrataError) {
        try await connection.send(StrataRequest(.put, "blobs/\(PercentEncoding.encodeQueryValue(name))?access=\(access.rawValue)")).requireSuccess()
    }

    /// Removes a container (administrators only): an empty one, or with `force` one with blobs,
    /// which are deleted with it.
    public func deleteContainer(_ name: String, force: Bool = false) async throws(StrataError) {
        let query = force ? "?force=true" : ""
        try await connection.send(StrataRequest(.delete, "blobs/\(PercentEncoding.encodeQueryValue(name))\(query)")).requireSuccess()
    }

    /// One page of a container's blobs, in byte order of their names.
    ///
    /// - Parameters:
    ///   - prefix: only names that start with it (`2024/` for a "folder").
    ///   - limit: at most this many (1…1000; the server's default is 1000).
    ///   - marker: the previous page's ``BlobPage/nextMarker``.
    public func blobs(in container: String, prefix: String = "", limit: Int? = nil, marker: String? = nil) async throws(StrataError) -> BlobPage {
        var query = ["prefix=" + PercentEncoding.encodeQueryValue(prefix)]
        if let limit { query.append("limit=\(limit)") }
        if let marker { query.append("marker=" + PercentEncoding.encodeQueryValue(marker)) }
        let response = try await connection.send(StrataRequest(.get, "blobs/\(PercentEncoding.encodeQueryValue(container))?" + query.joined(separator: "&")))
            .requireSuccess()
        let json = try response.json()
        return BlobPage(blobs: (json["blobs"]?.arrayValue ?? []).compactMap(BlobProperties.init(json:)),
                        nextMarker: json["nextMarker"]?.stringValue)
    }

    /// Every blob of a container (whose names start with `prefix`), page after page.
    public func allBlobs(in container: String, prefix: String = "") async throws(StrataError) -> [BlobProperties] {
        var blobs: [BlobProperties] = []
        var marker: String?
        repeat {
            let page = try await self.blobs(in: container, prefix: prefix, marker: marker)
            blobs += page.blobs
            marker = page.nextMarker
        } while marker != nil
        return blobs
    }
}
