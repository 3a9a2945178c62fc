import Foundation
import HummingbirdTesting
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// A TCP connection to a loopback server that the test drives byte by byte: what slow, silent or
/// departing clients do, which no HTTP client library lets a test do. Blocking calls run on
/// threads of their own (see ``RawHTTP``), never on the cooperative pool the server needs.
final class RawSocket: @unchecked Sendable {
    // `@unchecked`: the descriptor is written once, in `init`, and closed once, in `close()`; a
    // test uses one socket from one task at a time.
    let fd: Int32

    /// Connects to 127.0.0.1:`port`, from `source` when given (any 127.x.y.z: the whole block is this
    /// machine, so two "clients" can have different addresses).
    init(port: Int, source: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                Glibc.close(fd)
                throw POSIXError(.EADDRNOTAVAIL)
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    func send(_ text: String) {
        _ = text.withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    }

    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Whether the server has closed the connection (or sent something), without waiting.
    var peerClosedOrSent: Bool {
        var poll = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return Glibc.poll(&poll, 1, 0) > 0
    }

    /// Everything the server sends until it closes the connection or `timeout` passes; `closed` says which.
    func readUntilClosed(timeout: Duration) async -> (text: String, closed: Bool) {
        let fd = self.fd
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var received: [UInt8] = []
                let deadline = ContinuousClock.now + timeout
                var buffer = [UInt8](repeating: 0, count: 16 * 1024)
                while ContinuousClock.now < deadline {
                    var poll = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    let remaining = max(1, Int32((deadline - ContinuousClock.now) / .milliseconds(1)))
                    guard Glibc.poll(&poll, 1, min(remaining, 100)) > 0 else { continue }
                    let count = recv(fd, &buffer, buffer.count, 0)
                    if count <= 0 {
                        continuation.resume(returning: (String(decoding: received, as: UTF8.self), true))
                        return
                    }
                    received += buffer[0..<count]
                }
                continuation.resume(returning: (String(decoding: received, as: UTF8.self), false))
            }
        }
    }

    /// Reads one response whose body has a Content-Length; nil when none completes within `timeout`.
    func readResponse(timeout: Duration) async -> String? {
        let fd = self.fd
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var received: [UInt8] = []
                let deadline = ContinuousClock.now + timeout
                var buffer = [UInt8](repeating: 0, count: 16 * 1024)
                while ContinuousClock.now < deadline {
                    if let end = received.firstRange(of: [13, 10, 13, 10]) {
                        let head = String(decoding: received[..<end.lowerBound], as: UTF8.self).lowercased()
                        let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                        if received.count - end.upperBound >= length {
                            continuation.resume(returning: String(decoding: received, as: UTF8.self))
                            return
                        }
                    }
                    var poll = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    guard Glibc.poll(&poll, 1, 100) > 0 else { continue }
                    let count = recv(fd, &buffer, buffer.count, 0)
                    if count <= 0 { break }
                    received += buffer[0..<count]
                }
                continuation.resume(returning: nil)
            }
        }
    }

    /// Shuts the sending side down (a half-close): the server reads the end of the stream, and can still answer.
    func shutdownWrite() {
        Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    func close() {
        Glibc.close(fd)
    }
}

extension RawSocket {
    /// One request on a connection of its own, answered in full: everything the server sends
    /// until it closes (or `timeout`), after `raw` and, when `halfClose`, the end of the stream.
    /// A complete request should not half-close: the server takes that for a client that waits
    /// for nothing and stops the request's statements (send `Connection: close` instead).
    static func exchange(port: Int, _ raw: String, halfClose: Bool = false, timeout: Duration = .seconds(15)) async throws -> String {
        try await exchange(port: port, Array(raw.utf8), halfClose: halfClose, timeout: timeout)
    }

    static func exchange(port: Int, _ raw: [UInt8], halfClose: Bool = false, timeout: Duration = .seconds(15)) async throws -> String {
        let socket = try RawSocket(port: port)
        defer { socket.close() }
        socket.send(raw)
        if halfClose { socket.shutdownWrite() }
        return await socket.readUntilClosed(timeout: timeout).text
    }
}

/// A test's server on a real socket: the in-process application started with Hummingbird's live
/// test client, and its port.
func withLiveServer<T: Sendable>(
    _ backend: Backend,
    services: [TestService] = [],
    configure: @Sendable (inout StrataConfiguration) -> Void = { _ in },
    _ test: @Sendable (Int) async throws -> T
) async throws -> T {
    try await PostgresSlots.run(backend) {
        var configuration = try await TestDatabases.shared.configuration(backend)
        for service in services {
            try await TestDatabases.shared.provision(service.name, backend, into: configuration, scripts: service.scripts(backend))
        }
        configure(&configuration)
        let app = try await buildApplication(configuration, logger: TestDatabases.logger)
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        return try await app.test(.live) { client in
            try await test(try #require(client.port))
        }
    }
}
