import Logging
import StrataCore
import StrataServer
import StrataBlobs

/// The demo's blob container (the SpeakEasy sample's): `speakers`, readable by anyone, holding one picture per
/// speaker of the `speakeasy` service under the name its `ImageUrl` gives (`/blobs/speakers/BTubalinal.jpg`).
///
/// Created at the first start, like the demo services: a container that exists already is left
/// as it is, so a restart keeps whatever was changed since. The pictures are generated from the
/// speakers' names (``SpeakerPortrait``), so they need no files shipped with Strata.
struct DemoBlobs {
    static let container = "speakers"
    static let urlPrefix = "\(ProvisioningTarget.blobPathPrefix)/\(container)/"

    func provision(_ target: ProvisioningTarget) async throws {
        guard let speakers = try await target.rows(of: "Speakers", in: "speakeasy", columns: ["Name", "ImageUrl"], orderedBy: ["RowKey"]),
              try await target.createContainer(Self.container, access: .publicRead) else { return }
        var created = 0
        for row in speakers {
            guard let speaker = row[0].stringValue, let url = row[1].stringValue, url.hasPrefix(Self.urlPrefix),
                  let name = PercentEncoding.decode(url.dropFirst(Self.urlPrefix.count)) else { continue }
            if try await target.addBlob(name, to: Self.container, content: SpeakerPortrait.jpeg(for: speaker), contentType: "image/jpeg") {
                created += 1
            }
        }
        target.logger.info("Created demo blob container", metadata: ["container": .string(Self.container), "blobs": "\(created)"])
    }
}
