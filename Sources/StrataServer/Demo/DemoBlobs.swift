import Foundation
import Logging
import NIOCore
import StrataCore
import StrataSQL

/// The demo's blob container (seed 001): `speakers`, readable by anyone, holding one picture per
/// speaker of the `speakeasy` service under the name its `ImageUrl` gives (`/blobs/speakers/BTubalinal.jpg`).
///
/// Created at the first start, like the demo services: a container that exists already is left
/// as it is, so a restart keeps whatever was changed since. The pictures are generated from the
/// speakers' names (``SpeakerPortrait``), so they need no files shipped with Strata.
struct DemoBlobs {
    static let container = "speakers"
    static let urlPrefix = "\(BlobTarget.prefix)/\(container)/"

    let store: any ServiceStore
    let blobs: BlobServices
    let logger: Logger

    func provision() async throws {
        guard let speakeasy = try await store.discover().first(where: { $0.name == "speakeasy" }) else { return }
        guard try await blobs.catalog.createContainer(Self.container, access: .publicRead, now: blobs.nowMilliseconds) else { return }
        var created = 0
        for (speaker, url) in try await speakers(speakeasy) where url.hasPrefix(Self.urlPrefix) {
            guard let name = PercentEncoding.decode(url.dropFirst(Self.urlPrefix.count)), (try? BlobNames.checkBlob(name)) != nil else {
                continue
            }
            let picture = ByteBuffer(bytes: SpeakerPortrait.jpeg(for: speaker))
            let object = try await blobs.store.write(AsyncStream { $0.yield(picture); $0.finish() }, limit: blobs.maxBlobSize)
            let record = BlobRecord(container: Self.container, name: name, object: object.id, size: object.size, sha256: object.sha256,
                                    contentType: "image/jpeg", modifiedAt: blobs.nowMilliseconds)
            if try await blobs.catalog.swap(record, replacing: nil) {
                created += 1
            } else {
                await blobs.store.delete([object.id])
            }
        }
        logger.info("Created demo blob container", metadata: ["container": .string(Self.container), "blobs": "\(created)"])
    }

    /// Each speaker's name and image URL.
    private func speakers(_ service: ServiceStorage) async throws -> [(String, String)] {
        let table = TableName(schema: service.schema, name: "Speakers")
        let rows = try await service.database.read { connection in
            try await connection.query("SELECT \"Name\", \"ImageUrl\" FROM \(table) ORDER BY \"RowKey\"", types: [.string, .string])
        }
        return rows.rows.compactMap { row in
            guard let name = row[0].stringValue, let url = row[1].stringValue else { return nil }
            return (name, url)
        }
    }
}
