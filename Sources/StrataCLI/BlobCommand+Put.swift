import ArgumentParser
import Foundation
import StrataClient

extension BlobCommand {
    struct Put: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "put",
            abstract: "Upload a file as a blob, creating or replacing it.",
            discussion: """
                The media type is taken from --content-type, else guessed by the server from the name's \
                extension. With --if-absent an existing blob is left alone (the server refuses with 412); \
                with --if-match ETAG only that version is replaced.

                  strata blob put photo.jpg albums/2024/photo.jpg
                  strata blob put report.pdf docs/q1.pdf --content-type application/pdf --if-absent
                """)

        @Argument(help: "The file to upload.") var file: String
        @Argument(help: "CONTAINER/NAME of the blob.") var target: String
        @Option(name: .customLong("content-type"), help: "The media type to store, such as image/jpeg.") var contentType: String?
        @Flag(name: .customLong("if-absent"), help: "Only create: refuse if the blob exists.") var ifAbsent = false
        @Option(name: .customLong("if-match"), help: "Only replace the version with this ETag.") var ifMatch: String?
        @OptionGroup var options: BlobServerOptions

        func run() async throws {
            let location = try BlobLocation(target, needsName: true)
            let url = URL(fileURLWithPath: file)
            guard FileManager.default.isReadableFile(atPath: url.path) else { throw ValidationError("cannot read the file \(file)") }
            let condition: BlobWriteCondition = ifAbsent ? .ifAbsent : ifMatch.map { .ifMatch($0) } ?? .none
            let progress = ProgressLine(label: "Uploading \(url.lastPathComponent)")
            let stored = try await options.client().upload(fileAt: url, to: location.container, as: location.name!, contentType: contentType,
                                                           condition: condition, progress: progress.handler)
            progress.finish()
            print("Stored \(location.container)/\(stored.name): \(stored.size) bytes, \(stored.contentType), ETag \(stored.etag)")
        }
    }
}
