import NIOCore
import StrataCore
import StrataSQL
import StrataBlobs

extension ProvisioningTarget {
    /// Where blobs are served: `/blobs/CONTAINER/NAME`.
    package static let blobPathPrefix = BlobTarget.prefix

    /// Creates a blob container unless one of that name exists; answers whether it was created.
    /// Outside a running server there is no blob store, and nothing is created.
    package func createContainer(_ name: String, access: ContainerAccess) async throws -> Bool {
        guard let blobs else { return false }
        return try await blobs.catalog.createContainer(name, access: access, now: blobs.nowMilliseconds)
    }

    /// Stores a blob unless the container holds one of that name, or the name is not a valid blob
    /// name; answers whether it was stored.
    package func addBlob(_ name: String, to container: String, content: [UInt8], contentType: String) async throws -> Bool {
        guard let blobs, (try? BlobNames.checkBlob(name)) != nil else { return false }
        let bytes = ByteBuffer(bytes: content)
        let object = try await blobs.store.write(AsyncStream { $0.yield(bytes); $0.finish() }, limit: blobs.maxBlobSize)
        let record = BlobRecord(container: container, name: name, object: object.id, size: object.size, sha256: object.sha256,
                                contentType: contentType, modifiedAt: blobs.nowMilliseconds)
        if try await blobs.catalog.swap(record, replacing: nil) { return true }
        await blobs.store.delete([object.id])
        return false
    }
}
