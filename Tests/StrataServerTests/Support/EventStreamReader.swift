import Foundation
import StrataCore

/// A Server-Sent Events subscriber over a raw socket, for the change-stream tests: it sends one
/// GET, reads the status, undoes the chunked framing and hands out events as they arrive, and can
/// drop the connection at any moment, as a phone losing its network does.
final class EventStreamReader: Sendable {
    struct Event: Sendable, Equatable {
        var id: String?
        var event: String
        var data: String

        /// The `changes` event's data as compact tables (rows and deleted keys by table).
        var tables: [JSONValue] {
            guard case .object(let object)? = try? JSONValue.parse(Array(data.utf8)), case .array(let tables)? = object["tables"] else { return [] }
            return tables
        }
    }

    let socket: RawSocket
    let status: Int
    let head: String
    let events: AsyncStream<Event>

    /// Connects and subscribes; returns once the response head has arrived.
    static func open(port: Int, path: String, headers: [String: String] = [:]) async throws -> EventStreamReader {
        let socket = try RawSocket(port: port)
        let extra = headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)\r\n" }.joined()
        socket.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\(extra)\r\n")
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        let fd = socket.fd
        let head: (status: Int, head: String) = await withCheckedContinuation { headContinuation in
            Thread.detachNewThread {
                var received: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 16 * 1024)
                var headDone = false
                var chunked = false
                var body: [UInt8] = []
                var pending: [UInt8] = []
                var parser = Parser()
                while true {
                    let count = recv(fd, &buffer, buffer.count, 0)
                    if count <= 0 { break }
                    received += buffer[0..<count]
                    if !headDone {
                        guard let end = received.firstRange(of: [13, 10, 13, 10]) else { continue }
                        let text = String(decoding: received[..<end.lowerBound], as: UTF8.self)
                        let status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
                        chunked = text.lowercased().contains("transfer-encoding: chunked")
                        headDone = true
                        headContinuation.resume(returning: (status, text))
                        pending = Array(received[end.upperBound...])
                        received = []
                    } else {
                        pending += received
                        received = []
                    }
                    if chunked {
                        // Chunks: hex size CRLF data CRLF.
                        while let line = pending.firstRange(of: [13, 10]) {
                            let sizeText = String(decoding: pending[..<line.lowerBound], as: UTF8.self)
                            guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16) else { pending = []; break }
                            guard pending.count >= line.upperBound + size + 2 else { break }
                            body += pending[line.upperBound ..< line.upperBound + size]
                            pending.removeFirst(line.upperBound + size + 2)
                        }
                    } else {
                        body += pending
                        pending = []
                    }
                    for event in parser.feed(&body) { continuation.yield(event) }
                }
                if !headDone { headContinuation.resume(returning: (0, "")) }
                continuation.finish()
            }
        }
        return EventStreamReader(socket: socket, status: head.status, head: head.head, events: events)
    }

    private init(socket: RawSocket, status: Int, head: String, events: AsyncStream<Event>) {
        self.socket = socket
        self.status = status
        self.head = head
        self.events = events
    }

    /// Drops the connection.
    func close() {
        shutdown(socket.fd, Int32(SHUT_RDWR))
    }

    /// The next `count` events other than heartbeats and `retry`, waiting at most `timeout`.
    func next(_ count: Int, timeout: Duration = .seconds(20)) async -> [Event] {
        let events = self.events
        return await withTaskGroup(of: [Event]?.self) { group in
            group.addTask {
                var got: [Event] = []
                for await event in events {
                    got.append(event)
                    if got.count == count { break }
                }
                return got
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? []
        }
    }

    /// The WHATWG parsing of an event stream, enough for Strata's (LF line ends, one data line).
    struct Parser {
        var id: String?
        var event = ""
        var data: [String] = []

        mutating func feed(_ bytes: inout [UInt8]) -> [Event] {
            var events: [Event] = []
            while let newline = bytes.firstIndex(of: 10) {
                let line = String(decoding: bytes[..<newline], as: UTF8.self)
                bytes.removeFirst(newline + 1)
                if line.isEmpty {
                    if !data.isEmpty || !event.isEmpty {
                        events.append(Event(id: id, event: event.isEmpty ? "message" : event, data: data.joined(separator: "\n")))
                    }
                    event = ""
                    data = []
                    continue
                }
                if line.hasPrefix(":") { continue }
                let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                let field = String(parts[0])
                var value = parts.count > 1 ? String(parts[1]) : ""
                if value.hasPrefix(" ") { value.removeFirst() }
                switch field {
                case "id": id = value
                case "event": event = value
                case "data": data.append(value)
                default: break
                }
            }
            return events
        }
    }
}
