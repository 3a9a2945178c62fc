import ArgumentParser
import Foundation
import StrataClient

extension BlobCommand {
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "get",
            abstract: "Download a blob into a file, or to standard output.",
            discussion: """
                Without FILE the blob is saved in the current directory under the last part of its name. \
                The file is replaced only once the whole blob has arrived.

                  strata blob get speakers/BTubalinal.jpg
                  strata blob get albums/2024/photo.jpg ~/Pictures/photo.jpg
                  strata blob get docs/notes.txt -          (to standard output)
                """)

        @Argument(help: "CONTAINER/NAME of the blob.") var target: String
        @Argument(help: "Where to save it; - for standard output.") var file: String?
        @OptionGroup var options: BlobServerOptions

        func run() async throws {
            let location = try BlobLocation(target, needsName: true)
            let name = location.name!
            let client = try await options.client()
            if file == "-" {
                let blob = try await client.download(name, from: location.container)
                FileHandle.standardOutput.write(blob.data)
                return
            }
            let destination = URL(fileURLWithPath: file ?? String(name.split(separator: "/").last ?? Substring(name)))
            let progress = ProgressLine(label: "Downloading \(destination.lastPathComponent)")
            let properties = try await client.download(name, from: location.container, to: destination, progress: progress.handler)
            progress.finish()
            print("Saved \(destination.path): \(properties.size) bytes, \(properties.contentType)")
        }
    }
}
