import HTTPTypes
import Hummingbird
import NIOCore
import StrataCore
import StrataIdentity
import StrataOData
import StrataStorage

/// `PUT /blobs/{container}/{name}`: streams the body into the store, then records it.
///
/// The body goes to the store as it arrives (the store hashes and writes it; memory holds a
/// chunk), and the blob becomes visible only when its catalog row is written after the content is
/// complete and on disk. So a client that disconnects halfway, a body over the limit, a refused
/// precondition or a full disk leave the previous version (or no blob) in place.
struct BlobUpload {
    let blobs: BlobRuntime
    let container: String
    let name: String
    let request: Request
    let principal: Principal?

    /// Catalog swaps tried before giving up on a blob that others keep replacing.
    static let attempts = 8

    func respond() async throws -> Response {
        let container = try await blobs.container(self.container, for: .write, principal: principal)
        let limit = blobs.maxBlobSize
        if let declared = request.headers[.contentLength].flatMap(Int64.init), declared > limit {
            throw Self.tooLarge(limit)
        }
        let contentType = try BlobContentType.resolve(header: request.headers[.contentType], name: name)
        let conditions = try BlobConditions(request.headers)
        // Checked before the body is read, so that a refused upload does not first cost its
        // transfer; checked again at the swap, which is what makes it exact.
        try conditions.evaluateWrite(try await blobs.catalog.blob(container: container.name, name: name), name: name)

        let object: StoredObject
        do {
            object = try await blobs.store.write(request.body, limit: limit)
        } catch BlobStoreError.tooLarge {
            throw Self.tooLarge(limit)
        } catch BlobStoreError.noSpace {
            throw ODataError(status: 507, code: "InsufficientStorage", message: "The server's disk is full; the blob was not stored.")
        }
        do {
            return try await record(object, in: container, contentType: contentType, conditions: conditions)
        } catch {
            await blobs.store.delete([object.id])
            throw error
        }
    }

    private func record(_ object: StoredObject, in container: BlobContainer, contentType: String,
                        conditions: BlobConditions) async throws -> Response {
        for _ in 0..<Self.attempts {
            let current = try await blobs.catalog.blob(container: container.name, name: name)
            try conditions.evaluateWrite(current, name: name)
            let record = BlobRecord(container: container.name, name: name, object: object.id, size: object.size,
                                    sha256: object.sha256, contentType: contentType, modifiedAt: blobs.nowMilliseconds)
            let swapped: Bool
            do {
                swapped = try await blobs.catalog.swap(record, replacing: current)
            } catch StorageError.foreignKeyViolation {
                throw ODataError.notFound("The container \(container.name) was removed while the blob was being uploaded.")
            }
            guard swapped else { continue }
            if let current { await blobs.store.delete([current.object]) }
            var headers = BlobHeaders.describing(record)
            if current == nil { headers[.location] = BlobHeaders.path(container: container.name, name: name) }
            return ODataResponse.json(BlobJSON.properties(record), status: current == nil ? .created : .ok, version: nil, extraHeaders: headers)
        }
        throw ODataError.conflict("The blob '\(name)' was replaced by other uploads \(Self.attempts) times while this one was being recorded; try again.")
    }

    static func tooLarge(_ limit: Int64) -> ODataError {
        .payloadTooLarge("The blob is larger than the \(limit) bytes this server accepts (maxBlobSize); nothing was stored.")
    }
}
