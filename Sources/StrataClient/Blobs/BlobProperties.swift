import Foundation
import StrataCore

/// What a server says about a blob: its name, size, media type, version and age.
public struct BlobProperties: Sendable, Hashable {
    /// The blob's name within its container; may contain `/`.
    public var name: String
    /// The size in bytes of the whole blob.
    public var size: Int64
    /// The media type it is served with, such as `image/jpeg`.
    public var contentType: String
    /// The entity tag, quoted as the `ETag` header gives it (Strata's is the content's SHA-256).
    /// Pass it to ``BlobWriteCondition/ifMatch(_:)`` or ``BlobClient/downloadIfModified(_:from:etag:progress:)``.
    public var etag: String
    /// When the blob was last written (whole seconds when read from headers).
    public var lastModified: Date

    public init(name: String, size: Int64, contentType: String, etag: String, lastModified: Date) {
        self.name = name
        self.size = size
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
    }

    /// The SHA-256 of the content as lowercase hex, read from the ETag; nil when the server's
    /// ETag is not a SHA-256.
    public var sha256: String? {
        let opaque = etag.trimmingCharacters(in: CharacterSet(charactersIn: "\"W/"))
        return opaque.count == 64 && opaque.allSatisfy(\.isHexDigit) ? opaque.lowercased() : nil
    }

    /// From a JSON object of a listing or an upload answer.
    init?(json: JSONValue) {
        guard let name = json["name"]?.stringValue, let size = json["size"]?.int64Value,
              let etag = json["etag"]?.stringValue else { return nil }
        self.init(name: name, size: size, contentType: json["contentType"]?.stringValue ?? "application/octet-stream", etag: etag,
                  lastModified: json["lastModified"]?.stringValue.flatMap(BlobDates.iso8601) ?? Date(timeIntervalSince1970: 0))
    }

    /// From the headers of a GET or HEAD answer; the size is the whole blob's even for a range.
    init?(name: String, headers: StrataHeaders) {
        guard let etag = headers["ETag"] else { return nil }
        var size = headers["Content-Length"].flatMap { Int64($0) }
        if let range = headers["Content-Range"], let total = range.split(separator: "/").last.flatMap({ Int64($0) }) {
            size = total
        }
        self.init(name: name, size: size ?? 0, contentType: headers["Content-Type"] ?? "application/octet-stream", etag: etag,
                  lastModified: headers["Last-Modified"].flatMap(BlobDates.httpDate) ?? Date(timeIntervalSince1970: 0))
    }
}

/// A downloaded blob held in memory.
public struct BlobData: Sendable, Hashable {
    /// The bytes: the whole blob, or the range asked for.
    public var data: Data
    public var properties: BlobProperties
    /// The bytes `data` holds when a range was asked for and answered (206); nil for the whole blob.
    public var range: ClosedRange<Int64>?
}

/// Who may read a container without signing in.
public enum BlobContainerAccess: String, Sendable, Hashable, CaseIterable {
    /// Only callers with rights on the container (the server's default).
    case `private`
    /// Anyone may list the container and read its blobs.
    case publicRead = "public-read"
}

/// A container as ``BlobClient/containers()`` lists it.
public struct BlobContainerInfo: Sendable, Hashable {
    public var name: String
    public var access: BlobContainerAccess
    public var created: Date
}

/// One page of a container's blobs, in byte order of their names.
public struct BlobPage: Sendable, Hashable {
    public var blobs: [BlobProperties]
    /// Pass as `marker` to get the next page; nil on the last page.
    public var nextMarker: String?
}

/// A precondition on an upload or a deletion; the server answers 412 (``StrataError/Kind/preconditionFailed``)
/// and changes nothing when it does not hold.
public enum BlobWriteCondition: Sendable, Hashable {
    /// Unconditional: create or replace.
    case none
    /// Only if the blob does not exist yet (`If-None-Match: *`).
    case ifAbsent
    /// Only if the blob is still the version with this ETag (`If-Match`).
    case ifMatch(String)

    var headers: StrataHeaders {
        switch self {
        case .none: return [:]
        case .ifAbsent: return ["If-None-Match": "*"]
        case .ifMatch(let etag): return ["If-Match": etag]
        }
    }
}

/// The two date forms blob answers use.
enum BlobDates {
    static func iso8601(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}
