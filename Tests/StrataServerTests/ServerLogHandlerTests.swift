import Logging
import NIOConcurrencyHelpers
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// The server's log handler writes swift-log's stream format, and formats metadata only for the
/// lines it writes (Hummingbird sets a request id on every request, most never logged).
@Suite("Server log handler")
struct ServerLogHandlerTests {
    /// Counts how often its text is asked for.
    final class CountingValue: CustomStringConvertible, Sendable {
        let reads = NIOLockedValueBox(0)
        var description: String {
            reads.withLockedValue { $0 += 1 }
            return "req-7"
        }
    }

    @Test("Lines carry level, label, sorted metadata, source and message; metadata is formatted only when a line is written")
    func formatsWhenWriting() {
        let lines = NIOLockedValueBox<[String]>([])
        let output = ServerLogHandler.Output { line in lines.withLockedValue { $0.append(line) } }
        var logger = Logger(label: "strata") { ServerLogHandler(label: $0, output: output) }
        logger.logLevel = .info
        let value = CountingValue()
        for _ in 0..<100 {
            logger[metadataKey: "hb.request.id"] = .stringConvertible(value)
            logger.debug("below the level")
        }
        #expect(value.reads.withLockedValue { $0 } == 0)
        #expect(lines.withLockedValue { $0 }.isEmpty)

        logger[metadataKey: "a.first"] = "1"
        logger.warning("slow request", metadata: ["path": "/cardealer/Person(1)"])
        let written = lines.withLockedValue { $0 }
        #expect(written.count == 1)
        let line = written.first ?? ""
        #expect(line.hasSuffix(" warning strata: a.first=1 hb.request.id=req-7 path=/cardealer/Person(1) [StrataServerTests] slow request\n"), "\(line)")
        // `2026-11-23T14:20:27+0000 warning …`: a local timestamp with its offset comes first.
        #expect(line.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} warning .*\n/) != nil, "\(line)")
        #expect(value.reads.withLockedValue { $0 } == 1)
    }

    @Test("An error passed with the event is written as error.message and error.type")
    func writesErrors() {
        let lines = NIOLockedValueBox<[String]>([])
        let output = ServerLogHandler.Output { line in lines.withLockedValue { $0.append(line) } }
        let handler = ServerLogHandler(label: "", output: output)
        handler.log(event: LogEvent(level: .error, message: "write failed", error: LogTestError(), metadata: nil, source: "s",
                                    file: #fileID, function: #function, line: #line))
        let line = lines.withLockedValue { $0 }.first ?? ""
        #expect(line.contains(" error: error.message=disk full error.type=StrataServerTests.LogTestError"), "\(line)")
        #expect(line.hasSuffix(" [s] write failed\n"))
    }
}

struct LogTestError: Error, CustomStringConvertible {
    var description: String { "disk full" }
}
