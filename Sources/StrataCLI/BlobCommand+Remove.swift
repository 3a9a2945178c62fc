import ArgumentParser
import Foundation
import StrataClient

extension BlobCommand {
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm",
            abstract: "Delete a blob, or a whole container.",
            discussion: """
                CONTAINER/NAME deletes one blob (--if-match ETAG: only that version). CONTAINER alone \
                removes the container, which needs the admin role and an empty container unless --force \
                is given, which deletes its blobs too.

                  strata blob rm albums/2024/photo.jpg
                  strata blob rm albums --force
                """)

        @Argument(help: "CONTAINER/NAME, or CONTAINER.") var target: String
        @Flag(help: "With a container: delete it with every blob in it.") var force = false
        @Option(name: .customLong("if-match"), help: "Only delete the version with this ETag.") var ifMatch: String?
        @OptionGroup var options: BlobServerOptions

        func run() async throws {
            let location = try BlobLocation(target, needsName: false)
            let client = try await options.client()
            if let name = location.name {
                try await client.delete(name, from: location.container, ifMatch: ifMatch)
                print("Deleted \(location.container)/\(name).")
            } else {
                try await client.deleteContainer(location.container, force: force)
                print("Removed the container \(location.container).")
            }
        }
    }
}
