import Foundation

/// Uploads over a raw socket: a body generated as it is sent (never held whole, so that a test
/// can send more than it wants to keep), or half a body and then a closed connection.
enum RawUpload {
    struct Answer: Sendable {
        var status: Int
        var text: String
    }

    /// A deterministic body: byte i is `(i * 31 + i / 4096) & 0xFF`, so any part can be checked.
    static func byte(at index: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: index &* 31 &+ index / 4096)
    }

    /// `PUT` with `Content-Length: size`, the body written 64 KiB at a time; `onProgress` gets the
    /// bytes sent so far every 1 MiB. Answers the status and the response text.
    static func put(port: Int, path: String, headers: [String: String], size: Int,
                    onProgress: @escaping @Sendable (Int) -> Void = { _ in }) async throws -> Answer {
        try await onOwnThread {
            let fd = try RawHTTP.connect(port: port)
            defer { close(fd) }
            try sendAll(fd, Array(head(port: port, path: path, headers: headers, length: size).utf8))
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            var sent = 0
            while sent < size {
                let count = min(chunk.count, size - sent)
                for i in 0..<count { chunk[i] = byte(at: sent + i) }
                try sendAll(fd, Array(chunk[0..<count]))
                sent += count
                if sent % (1 << 20) == 0 { onProgress(sent) }
            }
            return try readAnswer(fd)
        }
    }

    /// Announces `declared` bytes, sends `sent` of them, then closes the connection: a client
    /// that goes away mid-upload.
    static func putAndHangUp(port: Int, path: String, headers: [String: String], declared: Int, sent: Int) async throws {
        try await onOwnThread {
            let fd = try RawHTTP.connect(port: port)
            defer { close(fd) }
            try sendAll(fd, Array(head(port: port, path: path, headers: headers, length: declared).utf8))
            try sendAll(fd, (0..<sent).map(byte(at:)))
        }
    }

    private static func head(port: Int, path: String, headers: [String: String], length: Int) -> String {
        var text = "PUT \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: \(length)\r\nConnection: close\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        return text + "\r\n"
    }

    private static func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var done = 0
        while done < bytes.count {
            let count = bytes[done...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw POSIXError(.EPIPE) }
            done += count
        }
    }

    private static func readAnswer(_ fd: Int32) throws -> Answer {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        let status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
        return Answer(status: status, text: text)
    }
}
