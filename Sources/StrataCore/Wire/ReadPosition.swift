/// A position in PostgreSQL's write-ahead log (an LSN, written `16/B374D848`) that a caller has seen:
/// the `Strata-Position` header of responses from a server that reads from standbys.
///
/// A server with read replicas (standbys) answers every request with the position its answer
/// reflects: after a write, a position at or past the write's commit; after a read, one at or past
/// the snapshot the read saw. A client that sends the highest position it has seen back with its
/// next requests (``headerName``) is never served data older than that — any server behind a load
/// balancer sends such a read to a standby only once that standby has replayed past the position,
/// and otherwise to the primary. `StrataClient`'s `Connection` does this by itself.
public struct ReadPosition: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The request and response header that carries a position.
    public static let headerName = "Strata-Position"

    /// The byte offset in the log.
    public let offset: UInt64

    public init(offset: UInt64) {
        self.offset = offset
    }

    /// Reads PostgreSQL's text form, two hexadecimal numbers of at most 8 digits around a slash
    /// (`0/16B6C50`); nil for anything else.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...8).contains(parts[0].count), (1...8).contains(parts[1].count),
              parts.allSatisfy({ $0.allSatisfy(\.isHexDigit) }),
              let high = UInt64(parts[0], radix: 16), let low = UInt64(parts[1], radix: 16) else { return nil }
        offset = high << 32 | low
    }

    /// PostgreSQL's text form, `HIGH/LOW` in upper-case hexadecimal.
    public var description: String {
        String(offset >> 32, radix: 16, uppercase: true) + "/" + String(offset & 0xFFFF_FFFF, radix: 16, uppercase: true)
    }

    public static func < (lhs: ReadPosition, rhs: ReadPosition) -> Bool {
        lhs.offset < rhs.offset
    }
}
