import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
@testable import StrataCore
@testable import StrataServer
import Testing

extension TestClientProtocol {
    /// `PUT /blobs/{container}` (creating it; the test clients sign in as an administrator).
    @discardableResult
    func createContainer(_ name: String, access: String? = nil) async throws -> TestResponse {
        let response = try await execute(uri: "/blobs/\(name)" + (access.map { "?access=\($0)" } ?? ""), method: .put, headers: [:], body: nil)
        #expect(response.status == .created, "creating \(name): \(response.text)")
        return response
    }

    func putBlob(_ path: String, _ bytes: [UInt8], headers: HTTPFields = [:]) async throws -> TestResponse {
        try await execute(uri: path, method: .put, headers: headers, body: ByteBuffer(bytes: bytes))
    }
}

extension TestResponse {
    var bytes: [UInt8] { Array(body.readableBytesView) }
}

enum BlobTestData {
    /// Every byte value, then pseudo-random bytes from a fixed seed: binary content that no text
    /// handling could pass through unchanged.
    static func binary(_ count: Int, seed: UInt64 = 0x5EED) -> [UInt8] {
        var state = seed
        var bytes = (0...255).map(UInt8.init)
        while bytes.count < count {
            // xorshift64*
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            bytes.append(UInt8(truncatingIfNeeded: (state &* 0x2545F4914F6CDD1D) >> 56))
        }
        return Array(bytes.prefix(count))
    }

    static func sha256(_ bytes: [UInt8]) -> String {
        Hex.lowercase(SHA256.hash(data: bytes))
    }

    /// The files of stored objects under a data directory.
    static func objectFiles(in dataDirectory: String) -> [URL] {
        let root = URL(fileURLWithPath: dataDirectory).appendingPathComponent("blobs/objects")
        let folders = (try? FileManager.default.contentsOfDirectory(at: root, includingPropertiesForKeys: nil)) ?? []
        return folders.flatMap { (try? FileManager.default.contentsOfDirectory(at: $0, includingPropertiesForKeys: nil)) ?? [] }
    }

    static func temporaryFiles(in dataDirectory: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: dataDirectory + "/blobs/tmp")) ?? []
    }
}
