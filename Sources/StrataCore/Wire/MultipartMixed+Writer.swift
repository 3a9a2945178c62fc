extension MultipartMixed {
    /// Writes a `multipart/mixed` message as `$batch` uses it, straight into one byte array: the server
    /// answers a thousand operations without building a part for each first.
    ///
    /// ```swift
    /// var writer = MultipartMixed.Writer(boundary: MultipartMixed.makeBoundary("batch"))
    /// writer.startPart()
    /// writer.writeHeader("Content-Type", "application/http")
    /// writer.endHeaders()
    /// writer.write("GET Person(1) HTTP/1.1\r\n\r\n")
    /// writer.endPart()
    /// let body = writer.finish()      // send with Content-Type: writer.contentType
    /// ```
    ///
    /// Between ``startChangeSet(boundary:)`` and ``endChangeSet()``, parts belong to the nested change
    /// set. Content is written as given: the caller makes sure it does not contain a delimiter line,
    /// which random boundaries from ``MultipartMixed/makeBoundary(_:)`` do.
    public struct Writer: Sendable {
        /// The boundary of the whole message.
        public let boundary: String
        /// What has been written so far.
        public private(set) var bytes: [UInt8] = []
        private var changeSetBoundary: String?

        /// A writer for a message with this boundary.
        public init(boundary: String) {
            self.boundary = boundary
        }

        /// The `Content-Type` of the message: `multipart/mixed; boundary=…`.
        public var contentType: String { "multipart/mixed; boundary=\(boundary)" }

        /// Starts a part (of the open change set, if any) with its delimiter line; its headers follow.
        public mutating func startPart() {
            write("--\(changeSetBoundary ?? boundary)\r\n")
        }

        /// Writes one header line, `name: value`.
        public mutating func writeHeader(_ name: String, _ value: String) {
            write(name)
            write(": ")
            write(value)
            write("\r\n")
        }

        /// Ends the header lines with a blank line; the content follows.
        public mutating func endHeaders() {
            write("\r\n")
        }

        /// Appends text as UTF-8.
        public mutating func write(_ text: String) {
            bytes.append(contentsOf: text.utf8)
        }

        /// Appends bytes as they are.
        public mutating func write(_ content: [UInt8]) {
            bytes.append(contentsOf: content)
        }

        /// Ends the current part's content.
        public mutating func endPart() {
            write("\r\n")
        }

        /// Starts a part that is a change set: a nested `multipart/mixed` with its own boundary, to
        /// which the following parts belong until ``endChangeSet()``.
        public mutating func startChangeSet(boundary inner: String) {
            write("--\(boundary)\r\nContent-Type: multipart/mixed; boundary=\(inner)\r\n\r\n")
            changeSetBoundary = inner
        }

        /// Closes the open change set; later parts belong to the message again.
        public mutating func endChangeSet() {
            guard let inner = changeSetBoundary else { return }
            write("--\(inner)--\r\n")
            changeSetBoundary = nil
        }

        /// Closes the message (and a change set left open) and returns its bytes.
        public mutating func finish() -> [UInt8] {
            endChangeSet()
            write("--\(boundary)--\r\n")
            return bytes
        }
    }
}
