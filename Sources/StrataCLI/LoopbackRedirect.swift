import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where `strata login --provider` is sent back to: a listener on 127.0.0.1 and a port the system
/// picks (RFC 8252 §7.3), which takes one redirect to `/callback`, answers the browser with a page
/// saying it may be closed, and hands the URL to the command. The server registers
/// `http://127.0.0.1/callback` without a port, which matches any port of that address.
final class LoopbackRedirect: Sendable {
    private let socket: Int32
    let port: Int

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init() throws {
        #if canImport(Glibc)
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "cannot open a socket for the sign-in's redirect") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 4) == 0 else {
            close(fd)
            throw Failure(description: "cannot listen on 127.0.0.1 for the sign-in's redirect")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        socket = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(socket) }

    var redirectURI: URL { URL(string: "http://127.0.0.1:\(port)/callback")! }

    /// Waits for the browser's request to `/callback` (other paths, such as a favicon, are answered
    /// 404 and waited past) for at most `timeout` seconds, on a thread of its own.
    func wait(timeout: TimeInterval) async throws -> URL {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try self.accept(until: Date().addingTimeInterval(timeout)) })
            }
        }
    }

    private func accept(until deadline: Date) throws -> URL {
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw Failure(description: "no browser came back within the time allowed; run the command again") }
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Int32(min(left, 1) * 1000)) > 0 else { continue }
            let client = acceptConnection(socket)
            guard client >= 0 else { continue }
            defer { close(client) }
            guard let target = Self.requestTarget(client) else { continue }
            guard target.hasPrefix("/callback") else {
                Self.answer(client, status: "404 Not Found", text: "Not found.")
                continue
            }
            let failed = target.contains("error=")
            Self.answer(client, status: "200 OK", text: failed ? "Sign-in failed; see the terminal. You can close this tab."
                        : "Signed in to Strata. You can close this tab and return to the terminal.")
            guard let url = URL(string: "http://127.0.0.1:\(port)\(target)") else { continue }
            return url
        }
    }

    /// The request line's target, read with a bound (a request's head is small).
    private static func requestTarget(_ client: Int32) -> String? {
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while head.count < 16 * 1024 {
            let read = recv(client, &buffer, buffer.count, 0)
            guard read > 0 else { break }
            head += buffer[0..<read]
            if head.contains(UInt8(ascii: "\n")) { break }
        }
        guard let line = String(decoding: head, as: UTF8.self).split(separator: "\r\n", maxSplits: 1).first else { return nil }
        let parts = line.split(separator: " ")
        guard parts.count == 3, parts[0] == "GET" else { return nil }
        return String(parts[1])
    }

    private static func answer(_ client: Int32, status: String, text: String) {
        let body = "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>Strata</title><p>\(text)</p></html>\n"
        let response = "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        _ = response.withCString { send(client, $0, strlen($0), 0) }
    }
}

/// `accept` without the peer's address, under one name on both systems.
private func acceptConnection(_ socket: Int32) -> Int32 {
    accept(socket, nil, nil)
}
