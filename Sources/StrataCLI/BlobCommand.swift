import ArgumentParser
import Foundation
import StrataClient
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `strata blob put|get|ls|rm|mk`: files in the server's blob containers.
struct BlobCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blob",
        abstract: "Upload, download, list and delete files in blob containers.",
        discussion: """
            Blobs live in containers at /blobs/CONTAINER/NAME; a NAME may contain '/'. Containers are \
            private unless created public-read; reading a private one, and every upload and deletion, \
            needs credentials: sign in first with `strata login`. Files stream both ways, so their size \
            does not matter to memory.

              strata blob ls                                   (the containers you may list)
              strata blob ls speakers                          (the blobs of a container)
              strata blob get speakers/BTubalinal.jpg          (into ./BTubalinal.jpg)
              strata blob put photo.jpg albums/2024/photo.jpg
              strata blob rm albums/2024/photo.jpg
            """,
        subcommands: [Put.self, Get.self, List.self, Remove.self, Make.self])
}

/// The options every blob command shares: the server, and how to reach it signed in.
struct BlobServerOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The server. \(DefaultServer.help)"))
    var server: String?

    var serverURL: URL {
        get throws {
            let text = DefaultServer.text(option: server)
            guard let url = URL(string: text.hasSuffix("/") ? text : text + "/"), url.host != nil else {
                throw ValidationError("--server \(text) is not a URL such as http://127.0.0.1:8080")
            }
            return url
        }
    }

    /// A client signed in with the tokens `strata login` stored for the server, if any.
    func client() async throws -> BlobClient {
        let url = try serverURL
        let session = try await Credentials.session(for: url)
        return BlobClient(serverURL: url, configuration: ConnectionConfiguration(timeout: 300, authenticator: session))
    }
}

/// `CONTAINER/NAME` or `CONTAINER` as typed.
struct BlobLocation {
    var container: String
    var name: String?

    init(_ text: String, needsName: Bool) throws {
        var rest = Substring(text)
        if rest.hasPrefix("/") { rest = rest.dropFirst() }
        if rest.hasPrefix("blobs/") { rest = rest.dropFirst("blobs/".count) }
        let slash = rest.firstIndex(of: "/")
        container = String(rest[..<(slash ?? rest.endIndex)])
        let name = slash.map { String(rest[rest.index(after: $0)...]) } ?? ""
        self.name = name.isEmpty ? nil : name
        guard !container.isEmpty else { throw ValidationError("name a container, as in speakers/BTubalinal.jpg") }
        if needsName, self.name == nil { throw ValidationError("name a blob as CONTAINER/NAME, as in speakers/BTubalinal.jpg") }
    }
}

/// Shows a transfer's progress on standard error, when that is a terminal.
struct ProgressLine: Sendable {
    let label: String
    let enabled = isatty(STDERR_FILENO) != 0

    var handler: (@Sendable (TransferProgress) -> Void)? {
        guard enabled else { return nil }
        let label = self.label
        return { progress in
            let done = Self.megabytes(progress.completedBytes)
            let text: String
            if let fraction = progress.fractionCompleted, let total = progress.expectedBytes {
                text = "\r\(label): \(Int(fraction * 100))% (\(done) of \(Self.megabytes(total)))"
            } else {
                text = "\r\(label): \(done)"
            }
            FileHandle.standardError.write(Data(text.utf8))
        }
    }

    func finish() {
        if enabled { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    static func megabytes(_ bytes: Int64) -> String {
        bytes < 1_000_000 ? "\(bytes) bytes" : String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }
}
