import Crypto
import Foundation

/// A minimal HTTP/1.1 client over a POSIX socket that reads a response without keeping it,
/// so that a test can watch the server's memory while a large body streams.
enum RawHTTP {
    struct Response: Sendable {
        var status: Int
        var bytes: Int
        /// The last bytes of the body, to check that the document was complete.
        var tail: String
        /// SHA-256 of every byte after the head (the chunk framing included when the body is chunked).
        var digest: SHA256.Digest
    }

    /// Runs the blocking exchange on a thread of its own: blocking a thread of Swift's cooperative
    /// pool could starve the in-process server that is supposed to answer.
    static func get(port: Int, path: String, headers: [String: String] = [:],
                    onChunk: @escaping @Sendable (Int) -> Void = { _ in }) async throws -> Response {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try blockingGet(port: port, path: path, headers: headers, onChunk: onChunk) })
            }
        }
    }

    /// A connected TCP socket to the loopback address; the caller closes it.
    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        return fd
    }

    private static func blockingGet(port: Int, path: String, headers: [String: String], onChunk: (Int) -> Void) throws -> Response {
        let fd = try connect(port: port)
        defer { close(fd) }
        let extra = headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)\r\n" }.joined()
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(extra)Connection: close\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var header: [UInt8] = []
        var headerDone = false
        var status = 0
        var bodyBytes = 0
        var tail: [UInt8] = []
        var chunks = 0
        var hasher = SHA256()
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            var slice = buffer[0..<count]
            if !headerDone {
                header += slice
                if let end = header.firstRange(of: [13, 10, 13, 10]) {
                    headerDone = true
                    let text = String(decoding: header[..<end.lowerBound], as: UTF8.self)
                    status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
                    slice = header[end.upperBound...]
                } else {
                    continue
                }
            }
            bodyBytes += slice.count
            slice.withUnsafeBytes { hasher.update(bufferPointer: $0) }
            tail = Array((tail + slice).suffix(64))
            chunks += 1
            if chunks % 16 == 0 { onChunk(bodyBytes) }
        }
        // The body is chunk-encoded; strip the framing from the tail for the completeness check.
        let text = String(decoding: tail, as: UTF8.self).replacingOccurrences(of: "\r\n0\r\n\r\n", with: "")
            .split(separator: "\r\n").last.map(String.init) ?? ""
        return Response(status: status, bytes: bodyBytes, tail: text, digest: hasher.finalize())
    }

    /// A process's resident memory in bytes (Linux `/proc/<pid>/status`); this process's by default.
    static func residentMemory(pid: Int32? = nil) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid.map(String.init) ?? "self")/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kilobytes * 1024
    }
}
