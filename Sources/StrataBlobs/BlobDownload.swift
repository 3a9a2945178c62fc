import Crypto
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import StrataCore
import StrataIdentity
import StrataOData
import StrataStorage

/// `GET` and `HEAD /blobs/{container}/{name}`: conditional, ranged, streamed from the store.
struct BlobDownload {
    let blobs: BlobRuntime
    let container: String
    let name: String
    let headers: HTTPFields
    let isHead: Bool
    let principal: Principal?

    /// Bytes read from the store and written to the client at a time.
    static let chunkSize = 128 * 1024
    /// Row reads allowed when the object a row named was replaced before it could be opened.
    static let attempts = 3

    func respond() async throws -> Response {
        let container = try await blobs.container(self.container, for: .read, principal: principal)
        let conditions = try BlobConditions(headers)
        for _ in 0..<Self.attempts {
            guard let blob = try await blobs.catalog.blob(container: container.name, name: name) else {
                throw ODataError.blobNotFound(name, container: container.name)
            }
            if try conditions.evaluateRead(blob) == .notModified {
                return BlobHeaders.notModified(blob)
            }
            let range: Range<Int64>?
            do {
                range = BlobConditions.rangeApplies(headers[.ifRange], to: blob) ? try ByteRange.parse(headers[.range], size: blob.size) : nil
            } catch {
                return BlobHeaders.rangeNotSatisfiable(error, blob: blob, headRequest: isHead)
            }
            if isHead {
                return Response(status: range == nil ? .ok : .partialContent, headers: head(blob, range: range), body: ResponseBody())
            }
            // The row may name an object that a newer upload has just replaced and removed:
            // read the row again, which now names the new one.
            guard let reader = try await blobs.store.open(blob.object) else { continue }
            guard reader.size == blob.size else {
                blobs.logger.error("A stored blob's size differs from its record: its content is damaged", metadata: [
                    "container": .string(blob.container), "blob": .string(blob.name), "object": .string(blob.object),
                    "recorded": "\(blob.size)", "stored": "\(reader.size)",
                ])
                throw ODataError.internalError("The stored content of the blob '\(name)' is damaged; the error has been logged.")
            }
            let body = Self.stream(reader, range: range ?? 0..<blob.size, verifying: range == nil ? blob : nil, logger: blobs.logger)
            return Response(status: range == nil ? .ok : .partialContent, headers: head(blob, range: range), body: body)
        }
        throw ODataError.serviceUnavailable("The blob '\(name)' changed several times while it was being opened; try again.")
    }

    private func head(_ blob: BlobRecord, range: Range<Int64>?) -> HTTPFields {
        var fields = BlobHeaders.describing(blob)
        fields[.contentType] = blob.contentType
        fields[.acceptRanges] = "bytes"
        if let range {
            fields[.contentLength] = String(range.upperBound - range.lowerBound)
            fields[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(blob.size)"
        } else {
            fields[.contentLength] = String(blob.size)
        }
        return fields
    }

    /// The body, read in chunks as the client takes them: memory holds a chunk or two, whatever
    /// the blob's size.
    ///
    /// A whole-blob read is checked against the SHA-256 recorded at upload. The last chunk is held
    /// back until the hash of everything before it and of itself is known: when they disagree, the
    /// connection is closed before the last chunk, so the client receives fewer bytes than
    /// `Content-Length` announced and cannot take damaged content for the blob. Ranges are checked
    /// against the recorded size only (hashing the whole object for a few bytes would defeat them).
    static func stream(_ reader: any BlobObjectReader, range: Range<Int64>, verifying blob: BlobRecord?, logger: Logger) -> ResponseBody {
        ResponseBody(contentLength: Int(range.upperBound - range.lowerBound)) { writer in
            var hasher = blob.map { _ in SHA256() }
            var held: ByteBuffer?
            var offset = range.lowerBound
            while offset < range.upperBound {
                let chunk = try await reader.read(at: offset, length: Int(min(Int64(chunkSize), range.upperBound - offset)))
                offset += Int64(chunk.readableBytes)
                chunk.withUnsafeReadableBytes { hasher?.update(bufferPointer: $0) }
                if let previous = held { try await writer.write(previous) }
                held = chunk
            }
            if let blob, let digest = hasher?.finalize(), Hex.lowercase(digest) != blob.sha256 {
                logger.error("A stored blob's content does not match its SHA-256: it is damaged; the download was cut short", metadata: [
                    "container": .string(blob.container), "blob": .string(blob.name), "object": .string(blob.object),
                ])
                throw BlobStoreError.io("content of \(blob.object) does not match its SHA-256")
            }
            if let held { try await writer.write(held) }
            try await writer.finish(nil)
        }
    }
}
