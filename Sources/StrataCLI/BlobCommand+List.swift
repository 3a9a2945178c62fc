import ArgumentParser
import Foundation
import StrataClient

extension BlobCommand {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ls",
            abstract: "List containers, or the blobs of a container.",
            discussion: """
                Without an argument: the containers you may list. With CONTAINER[/PREFIX]: its blobs whose \
                names start with PREFIX, every page of them, as size, last modified, and name.

                  strata blob ls
                  strata blob ls albums/2024/
                """)

        @Argument(help: "CONTAINER or CONTAINER/PREFIX.") var target: String?
        @Option(help: "Show at most this many blobs.") var limit: Int?
        @OptionGroup var options: BlobServerOptions

        func run() async throws {
            let client = try await options.client()
            guard let target else {
                for container in try await client.containers() {
                    print("\(container.name)\t\(container.access.rawValue)")
                }
                return
            }
            let location = try BlobLocation(target, needsName: false)
            var shown = 0
            var marker: String?
            repeat {
                let page = try await client.blobs(in: location.container, prefix: location.name ?? "", marker: marker)
                for blob in page.blobs {
                    if let limit, shown >= limit { return }
                    print("\(blob.size)\t\(ISO8601DateFormatter().string(from: blob.lastModified))\t\(blob.name)")
                    shown += 1
                }
                marker = page.nextMarker
            } while marker != nil
        }
    }
}
