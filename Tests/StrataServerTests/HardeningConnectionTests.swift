import Foundation
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// Slow, silent and departing clients over real sockets: no connection stays open for ever, and
/// the server keeps answering others (issue: idle and half-sent connections were never closed).
@Suite("Hardening: connections")
struct HardeningConnectionTests {
    /// Short limits, so that each case takes a few seconds.
    static func shortLimits(_ configuration: inout StrataConfiguration) {
        configuration.connections.idleTimeout = .seconds(2)
        configuration.connections.headerTimeout = .seconds(2)
        configuration.connections.bodyRateGrace = .seconds(2)
        configuration.connections.minimumBodyRate = 100
    }

    @Test("A silent connection is closed after the idle timeout; a kept-alive one that stops sending too")
    func silent() async throws {
        try await withLiveServer(.sqlite, configure: Self.shortLimits) { port in
            let silent = try RawSocket(port: port)
            defer { silent.close() }
            let start = ContinuousClock.now
            let result = await silent.readUntilClosed(timeout: .seconds(30))
            #expect(result.closed, "still open after 30 s")
            // A tick a second; generous above, for a loaded machine.
            #expect(ContinuousClock.now - start >= .seconds(2) && ContinuousClock.now - start < .seconds(15))
            #expect(result.text.isEmpty, "a connection that never asked gets no answer: \(result.text)")

            let kept = try RawSocket(port: port)
            defer { kept.close() }
            kept.send("GET /cardealer/Person(1) HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let answer = await kept.readResponse(timeout: .seconds(10))
            #expect(answer?.hasPrefix("HTTP/1.1 200") == true, "\(answer ?? "no answer")")
            let after = await kept.readUntilClosed(timeout: .seconds(20))
            #expect(after.closed, "a kept-alive connection with no next request is closed")
        }
    }

    @Test("Half a request head gets 408 after the header timeout, also when it trickles in byte by byte")
    func halfHeader() async throws {
        try await withLiveServer(.sqlite, configure: Self.shortLimits) { port in
            let half = try RawSocket(port: port)
            defer { half.close() }
            half.send("GET /cardealer/Person(1) HTTP/1.1\r\nHost: loc")
            let result = await half.readUntilClosed(timeout: .seconds(20))
            #expect(result.closed)
            #expect(result.text.hasPrefix("HTTP/1.1 408"), "\(result.text)")
            #expect(result.text.contains("RequestTimeout"))

            // A bounded slowloris: five connections, each sending a header byte every 300 ms.
            let header = Array("GET /cardealer/Person(1) HTTP/1.1\r\nHost: localhost\r\nX-Padding: \(String(repeating: "a", count: 400))\r\n\r\n".utf8)
            let start = ContinuousClock.now
            let closedAll = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<5 {
                    let socket = try RawSocket(port: port)
                    group.addTask {
                        defer { socket.close() }
                        for byte in header {
                            if socket.peerClosedOrSent || ContinuousClock.now - start > .seconds(40) { break }
                            socket.send([byte])
                            try await Task.sleep(for: .milliseconds(300))
                        }
                        return await socket.readUntilClosed(timeout: .seconds(1)).closed
                    }
                }
                var all = true
                for try await closed in group { all = all && closed }
                return all
            }
            #expect(closedAll, "every trickling connection was closed")
            // Sending the whole head would take over two minutes; the header timeout is 2 s.
            #expect(ContinuousClock.now - start < .seconds(30), "the slow heads were cut off at the header timeout")
        }
    }

    @Test("A body slower than the minimum rate gets 408; a body at a normal pace is served")
    func slowBody() async throws {
        // A 5 s grace: the steady body below must arrive within it even when the whole suite,
        // running beside it on two cores, delays this test's sleeps (2 s was once overrun).
        try await withLiveServer(.sqlite, configure: { Self.shortLimits(&$0); $0.connections.bodyRateGrace = .seconds(5) }) { port in
            let slow = try RawSocket(port: port)
            defer { slow.close() }
            slow.send("POST /cardealer/Person HTTP/1.1\r\nHost: localhost\r\nAuthorization: \(AdministratorTestClient.authorization)\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"lastName\":")
            let result = await slow.readUntilClosed(timeout: .seconds(20))
            #expect(result.closed)
            #expect(result.text.hasPrefix("HTTP/1.1 408"), "\(result.text)")

            let steady = try RawSocket(port: port)
            defer { steady.close() }
            let body = #"{"firstName":"Steady","lastName":"Writer","createDate":"\/Date(1700000000000)\/"}"#
            steady.send("POST /cardealer/Person HTTP/1.1\r\nHost: localhost\r\nAuthorization: \(AdministratorTestClient.authorization)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
            // Pieces 10 ms apart: a normal pace even when a loaded machine oversleeps each pause many times over.
            for piece in stride(from: 0, to: body.utf8.count, by: 40).map({ Array(body.utf8)[$0..<min($0 + 40, body.utf8.count)] }) {
                steady.send(Array(piece))
                try await Task.sleep(for: .milliseconds(10))
            }
            let answer = await steady.readResponse(timeout: .seconds(10))
            #expect(answer?.hasPrefix("HTTP/1.1 201") == true, "\(answer ?? "no answer")")
        }
    }

    @Test("Beyond the connection limit new connections wait until one closes")
    func connectionCap() async throws {
        // The strata process: Hummingbird's live test harness drops the connection limit from the
        // application's configuration when it picks a port.
        let configuration = try await TestDatabases.shared.configuration(.sqlite)
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let server = try await StrataProcess.start(try StrataProcess.executable(), arguments: [
            "serve", "--data", configuration.dataDirectory, "--log-level", "error", "--max-connections", "3", "--idle-timeout", "30s",
        ])
        defer { server.kill() }
        // One at a time, so that the server accepts each before the next arrives (it may accept a
        // burst of connections at once, as NIO reads several in one go).
        var held: [RawSocket] = []
        for _ in 0..<3 {
            held.append(try RawSocket(port: server.port))
            try await Task.sleep(for: .milliseconds(300))
        }
        // Accepted by the kernel, not by the server: no answer while the three are open.
        let waiting = try RawSocket(port: server.port)
        defer { waiting.close() }
        waiting.send("GET /cardealer/Person(1) HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let early = await waiting.readResponse(timeout: .seconds(1))
        #expect(early == nil, "a fourth connection was served while three were open")
        held[0].close()
        let answer = await waiting.readResponse(timeout: .seconds(10))
        #expect(answer?.hasPrefix("HTTP/1.1 200") == true, "\(answer ?? "no answer")")
        for socket in held.dropFirst() { socket.close() }
    }
}
