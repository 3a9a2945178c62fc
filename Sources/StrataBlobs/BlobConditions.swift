import HTTPTypes
import StrataCore
import StrataOData

/// The conditional headers of a blob request, evaluated in the order RFC 9110 §13.2.2 gives:
/// `If-Match`, else `If-Unmodified-Since`; then `If-None-Match`, else (reads only)
/// `If-Modified-Since`. Entity tags are the content's SHA-256; dates compare in whole seconds, as
/// `Last-Modified` gives them.
struct BlobConditions: Sendable {
    var ifMatch: EntityTagCondition?
    var ifNoneMatch: EntityTagCondition?
    var ifModifiedSince: Int64?
    var ifUnmodifiedSince: Int64?

    /// 400 for an entity-tag header that cannot be read; a date that cannot be read is ignored, as the RFC says.
    init(_ headers: HTTPFields) throws(ODataError) {
        ifMatch = try EntityTagCondition.parse(headers[.ifMatch], name: "If-Match")
        ifNoneMatch = try EntityTagCondition.parse(headers[.ifNoneMatch], name: "If-None-Match")
        ifModifiedSince = headers[.ifModifiedSince].flatMap(HTTPDate.parse)
        ifUnmodifiedSince = headers[.ifUnmodifiedSince].flatMap(HTTPDate.parse)
    }

    enum Outcome: Equatable {
        case proceed
        /// 304: the client's copy is current (GET and HEAD only).
        case notModified
    }

    /// For GET and HEAD of an existing blob.
    func evaluateRead(_ blob: BlobRecord) throws(ODataError) -> Outcome {
        try checkPreconditions(blob)
        if let ifNoneMatch {
            return ifNoneMatch.matches(Self.tag(blob)) ? .notModified : .proceed
        }
        if let ifModifiedSince, Self.seconds(blob) <= ifModifiedSince {
            return .notModified
        }
        return .proceed
    }

    /// For PUT and DELETE, against the blob as it is now (nil: there is none). 412 when refused.
    func evaluateWrite(_ blob: BlobRecord?, name: String) throws(ODataError) {
        guard let blob else {
            if ifMatch != nil {
                throw .preconditionFailed("If-Match: there is no blob '\(name)' to match; nothing was changed.")
            }
            return
        }
        try checkPreconditions(blob)
        switch ifNoneMatch {
        case .any?:
            throw .preconditionFailed("If-None-Match: * — the blob '\(name)' exists already; nothing was changed.")
        case let condition? where condition.matches(Self.tag(blob)):
            throw .preconditionFailed("If-None-Match: the blob '\(name)' exists with that ETag (\(blob.etag)); nothing was changed.")
        default:
            break
        }
    }

    private func checkPreconditions(_ blob: BlobRecord) throws(ODataError) {
        if let ifMatch {
            guard ifMatch.matches(Self.tag(blob)) else {
                throw .preconditionFailed("If-Match: the blob '\(blob.name)' has changed; its ETag is now \(blob.etag).")
            }
        } else if let ifUnmodifiedSince, Self.seconds(blob) > ifUnmodifiedSince {
            throw .preconditionFailed("If-Unmodified-Since: the blob '\(blob.name)' was modified at \(HTTPDate.format(Self.seconds(blob))).")
        }
    }

    /// `If-Range`: whether a `Range` applies (the client's partial copy is still this version).
    /// An entity tag must match exactly; a date must equal `Last-Modified`.
    static func rangeApplies(_ header: String?, to blob: BlobRecord) -> Bool {
        guard let header = header?.trimmingWhitespace() else { return true }
        if header.hasPrefix("\"") { return header == blob.etag }
        return HTTPDate.parse(header) == seconds(blob)
    }

    static func tag(_ blob: BlobRecord) -> EntityTag { EntityTag(opaque: blob.sha256) }

    static func seconds(_ blob: BlobRecord) -> Int64 { blob.modifiedAt / 1000 }
}
