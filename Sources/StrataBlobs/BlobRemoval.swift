import HTTPTypes
import Hummingbird
import StrataCore
import StrataIdentity
import StrataOData

/// `DELETE /blobs/{container}/{name}`, honouring `If-Match` and `If-Unmodified-Since`.
struct BlobRemoval {
    let blobs: BlobRuntime
    let container: String
    let name: String
    let headers: HTTPFields
    let principal: Principal?

    func respond() async throws -> Response {
        let container = try await blobs.container(self.container, for: .delete, principal: principal)
        let conditions = try BlobConditions(headers)
        for _ in 0..<BlobUpload.attempts {
            guard let current = try await blobs.catalog.blob(container: container.name, name: name) else {
                throw ODataError.blobNotFound(name, container: container.name)
            }
            try conditions.evaluateWrite(current, name: name)
            guard try await blobs.catalog.remove(current) else { continue }
            await blobs.store.delete([current.object])
            return Response(status: .noContent)
        }
        throw ODataError.conflict("The blob '\(name)' kept changing while it was being deleted; try again.")
    }
}
