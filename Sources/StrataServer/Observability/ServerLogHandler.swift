import Foundation
import Logging
import Synchronization

/// The server's log handler: lines in swift-log's `StreamLogHandler` format
/// (`2026-11-23T14:20:27+0000 info strata: key=value [source] message`), on standard output.
///
/// It exists because of when the work is done: Hummingbird sets a request id in the logger's
/// metadata on every request, and `StreamLogHandler` formats all metadata whenever it is set, so each
/// request paid for formatting a line that, below the log level, is never written. This handler
/// stores metadata as given and formats it only for lines it writes.
public struct ServerLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let output: Output

    /// A destination for whole lines; writes from several threads do not interleave.
    final class Output: Sendable {
        private let write: @Sendable (String) -> Void
        private let lock = Mutex(())

        init(_ write: @escaping @Sendable (String) -> Void) {
            self.write = write
        }

        func line(_ text: String) {
            lock.withLock { _ in write(text) }
        }

        static let standardOutput = Output { line in
            FileHandle.standardOutput.write(Data(line.utf8))
        }
    }

    /// A handler writing to standard output, for `Logger(label:factory:)`.
    public static func standardOutput(label: String) -> ServerLogHandler {
        ServerLogHandler(label: label, output: .standardOutput, metadataProvider: LoggingSystem.metadataProvider)
    }

    init(label: String, output: Output, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.output = output
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let explicit = event.metadata { merged.merge(explicit) { _, new in new } }
        if let error = event.error {
            merged["error.message"] = "\(error)"
            merged["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        var line = Self.timestamp() + " \(event.level)"
        if !label.isEmpty { line += " " + label }
        line += ":"
        if !merged.isEmpty {
            line += " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        line += " [\(event.source)] \(event.message)\n"
        output.line(line)
    }

    /// Local time to the second with its offset, as `StreamLogHandler` writes it.
    private static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        guard localtime_r(&now, &parts) != nil else { return "<unknown>" }
        var buffer = [CChar](repeating: 0, count: 64)
        let length = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
