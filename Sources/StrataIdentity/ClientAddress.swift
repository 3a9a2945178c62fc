import Foundation
import HTTPTypes
import StrataStorage

/// The proxies whose `X-Forwarded-For` the server believes (`--trusted-proxy`): a load balancer
/// in front of Strata connects from its own address, so throttling and per-caller limits would
/// otherwise count every client as one.
///
/// A request's client is its peer unless the peer is trusted; then it is the nearest address in
/// `X-Forwarded-For`, read from the right, that is not itself a trusted proxy (what nginx's
/// `real_ip_recursive on` does). Addresses a client wrote further left are never believed, since
/// any client can send the header.
public struct TrustedProxies: Sendable, Equatable {
    public let ranges: [IPAddressRange]

    public static let none = TrustedProxies(ranges: [])

    /// Parses addresses and CIDR blocks (`10.0.0.0/8`, `127.0.0.1`, `fd00::/8`).
    public init(parsing entries: [String]) throws {
        ranges = try entries.map { entry in
            guard let range = IPAddressRange(entry.trimmingCharacters(in: .whitespaces)) else {
                throw ConfigurationError("a trusted proxy is an IP address or a CIDR block such as 10.0.0.0/8, not \(entry)")
            }
            return range
        }
    }

    init(ranges: [IPAddressRange]) {
        self.ranges = ranges
    }

    func trusts(_ address: String) -> Bool {
        guard !ranges.isEmpty, let parsed = IPAddressRange.bytes(of: address) else { return false }
        return ranges.contains { $0.contains(parsed) }
    }

    /// The client of a request that came from `peer` with these headers.
    func client(peer: String, headers: HTTPFields) -> String {
        guard trusts(peer) else { return peer }
        let forwarded = headers[values: Self.forwardedFor].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        var client = peer
        for entry in forwarded.reversed() {
            guard IPAddressRange.bytes(of: entry) != nil else { break }
            client = entry
            if !trusts(entry) { break }
        }
        return client
    }

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
}

/// An IPv4 or IPv6 address block.
public struct IPAddressRange: Sendable, Equatable {
    let bytes: [UInt8]
    let prefix: Int

    /// `192.168.0.0/16`, `::1`, `10.1.2.3`; nil when it is neither.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let bytes = Self.bytes(of: String(parts[0])) else { return nil }
        let bits = bytes.count * 8
        let prefix = parts.count == 2 ? Int(parts[1]) : bits
        guard let prefix, (0...bits).contains(prefix) else { return nil }
        self.bytes = bytes
        self.prefix = prefix
    }

    func contains(_ address: [UInt8]) -> Bool {
        guard address.count == bytes.count else { return false }
        var remaining = prefix
        for (a, b) in zip(address, bytes) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            if a & mask != b & mask { return false }
            remaining -= 8
        }
        return true
    }

    /// The address's bytes (4 or 16), or nil when the text is no IP address.
    static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}
