extension MultipartMixed {
    /// One body part of a `multipart/mixed` message: its MIME headers and its content.
    ///
    /// The content is a slice of the message it was read from, so reading a `$batch` of a thousand
    /// operations copies none of their bodies.
    public struct Part: Sendable {
        /// The part's header fields in the order written, names as written.
        public var headers: [(name: String, value: String)]
        /// The bytes after the blank line that ends the headers, up to the line break before the next
        /// delimiter.
        public var body: ArraySlice<UInt8>

        /// A part with these headers and content.
        public init(headers: [(name: String, value: String)], body: ArraySlice<UInt8>) {
            self.headers = headers
            self.body = body
        }

        /// The first header with this name, compared without regard to case.
        public func header(_ name: String) -> String? {
            let lowered = name.lowercased()
            return headers.first { $0.name.lowercased() == lowered }?.value
        }
    }
}
