import Foundation
import NIOConcurrencyHelpers
import StrataClient
import Testing

/// BlobClient against a live server over real sockets: data and files both ways with progress,
/// ranges, conditions, listing, deleting, access.
@Suite("BlobClient against a live server")
struct BlobClientTests {
    static func bytes(_ count: Int) -> Data {
        var state: UInt32 = 2_463_534_242
        return Data((0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            return UInt8(truncatingIfNeeded: state)
        })
    }

    @Test("Data up and down: same bytes, properties from the answer and from HEAD agree, ranges, a SHA-256 ETag")
    func dataRoundTrip() async throws {
        try await withBlobServer { server in
            let blobs = try await server.signedInClient()
            try await blobs.createContainer("docs")
            let content = Self.bytes(300_000)
            let stored = try await blobs.upload(content, to: "docs", as: "reports/2024 Q1.bin", contentType: "application/x-report")
            #expect(stored.size == 300_000)
            #expect(stored.contentType == "application/x-report")
            #expect(stored.sha256?.count == 64)

            let fetched = try await blobs.download("reports/2024 Q1.bin", from: "docs")
            #expect(fetched.data == content)
            #expect(fetched.range == nil)
            #expect(fetched.properties.etag == stored.etag)
            #expect(fetched.properties.size == 300_000)
            let head = try await blobs.properties(of: "reports/2024 Q1.bin", in: "docs")
            #expect(head.etag == stored.etag && head.contentType == "application/x-report" && head.size == 300_000)
            #expect(abs(head.lastModified.timeIntervalSince(stored.lastModified)) < 1)

            let part = try await blobs.download("reports/2024 Q1.bin", from: "docs", range: 1000...1999)
            #expect(part.data == content[1000...1999])
            #expect(part.range == 1000...1999)
            #expect(part.properties.size == 300_000)
        }
    }

    @Test("Files up and down stream with progress; a failed download leaves the existing file alone")
    func files() async throws {
        try await withBlobServer { server in
            let blobs = try await server.signedInClient()
            try await blobs.createContainer("files")
            let directory = URL(fileURLWithPath: server.dataDirectory).appendingPathComponent("client-files")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let source = directory.appendingPathComponent("upload.bin")
            let content = Self.bytes(8 << 20)
            try content.write(to: source)

            let sent = NIOLockedValueBox<[Int64]>([])
            let started = Date()
            let stored = try await blobs.upload(fileAt: source, to: "files", as: "big.bin") { progress in
                if progress.direction == .upload { sent.withLockedValue { $0.append(progress.completedBytes) } }
            }
            let uploadSeconds = Date().timeIntervalSince(started)
            #expect(stored.size == Int64(content.count))
            let uploads = sent.withLockedValue { $0 }
            #expect(uploads.last == Int64(content.count))
            #expect(uploads == uploads.sorted())

            let received = NIOLockedValueBox<[TransferProgress]>([])
            let target = directory.appendingPathComponent("download.bin")
            let properties = try await blobs.download("big.bin", from: "files", to: target) { progress in
                received.withLockedValue { $0.append(progress) }
            }
            #expect(properties.etag == stored.etag)
            #expect(try Data(contentsOf: target) == content)
            let downloads = received.withLockedValue { $0 }
            #expect(downloads.last?.completedBytes == Int64(content.count))
            #expect(downloads.last?.fractionCompleted == 1)
            print("BlobClient: 8 MiB file uploaded in \(String(format: "%.2f", uploadSeconds)) s")

            // A 404 is an error, and the file that was there stays as it was.
            await #expect(throws: StrataError.self) { try await blobs.download("missing.bin", from: "files", to: target) }
            #expect(try Data(contentsOf: target) == content)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".download") }
            #expect(leftovers.isEmpty)
            await #expect(throws: StrataError.self) {
                try await blobs.upload(fileAt: directory.appendingPathComponent("no-such-file"), to: "files", as: "x")
            }
        }
    }

    @Test("Conditional reads and writes: 304 as nil, If-None-Match: * and If-Match refusals as preconditionFailed")
    func conditions() async throws {
        try await withBlobServer { server in
            let blobs = try await server.signedInClient()
            try await blobs.createContainer("notes")
            let first = try await blobs.upload(Data("one".utf8), to: "notes", as: "n.txt", condition: .ifAbsent)
            #expect(try await blobs.downloadIfModified("n.txt", from: "notes", etag: first.etag) == nil)
            do {
                try await blobs.upload(Data("two".utf8), to: "notes", as: "n.txt", condition: .ifAbsent)
                Issue.record("an existing blob was replaced despite If-None-Match: *")
            } catch let error as StrataError {
                #expect(error.kind == .preconditionFailed)
            }
            let second = try await blobs.upload(Data("two".utf8), to: "notes", as: "n.txt", condition: .ifMatch(first.etag))
            let changed = try await blobs.downloadIfModified("n.txt", from: "notes", etag: first.etag)
            #expect(changed?.data == Data("two".utf8))
            await #expect(throws: StrataError.self) { try await blobs.delete("n.txt", from: "notes", ifMatch: first.etag) }
            try await blobs.delete("n.txt", from: "notes", ifMatch: second.etag)
            do {
                _ = try await blobs.properties(of: "n.txt", in: "notes")
                Issue.record("a deleted blob still has properties")
            } catch let error as StrataError {
                #expect(error.kind == .notFound)
            }
        }
    }

    @Test("Listing pages through a container with a prefix; containers and access; anonymous callers read only public containers")
    func listingAndAccess() async throws {
        try await withBlobServer { server in
            let blobs = try await server.signedInClient()
            try await blobs.createContainer("albums")
            for name in ["2023/a.jpg", "2024/b.jpg", "2024/c.jpg", "2024/d.jpg", "readme.txt"] {
                try await blobs.upload(Data(name.utf8), to: "albums", as: name)
            }
            let first = try await blobs.blobs(in: "albums", prefix: "2024/", limit: 2)
            #expect(first.blobs.map(\.name) == ["2024/b.jpg", "2024/c.jpg"])
            let second = try await blobs.blobs(in: "albums", prefix: "2024/", limit: 2, marker: first.nextMarker)
            #expect(second.blobs.map(\.name) == ["2024/d.jpg"])
            #expect(second.nextMarker == nil)
            #expect(try await blobs.allBlobs(in: "albums").count == 5)
            #expect(first.blobs[0].contentType == "image/jpeg")

            let anonymous = server.anonymousClient
            do {
                _ = try await anonymous.download("readme.txt", from: "albums")
                Issue.record("an anonymous caller read a private container")
            } catch let error as StrataError {
                #expect(error.kind == .unauthorized)
            }
            // The demo's speakers container is public: its pictures are JPEGs anyone may read.
            let containers = try await anonymous.containers()
            #expect(containers.map(\.name) == ["speakers"])
            #expect(containers.first?.access == .publicRead)
            let picture = try await anonymous.download("BTubalinal.jpg", from: "speakers")
            #expect(picture.properties.contentType == "image/jpeg")
            #expect(picture.data.prefix(3) == Data([0xFF, 0xD8, 0xFF]))
            #expect(picture.data.suffix(2) == Data([0xFF, 0xD9]))

            try await blobs.deleteContainer("albums", force: true)
            #expect(try await blobs.containers().map(\.name) == ["speakers"])
        }
    }
}
