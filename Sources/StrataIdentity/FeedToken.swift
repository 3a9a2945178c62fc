import StrataCore
import Crypto
import Foundation
import StrataStorage

/// A change-feed token: where a client is in a service's change log, for which query and which
/// rights — the `!deltatoken` of a delta link, the `token` of `$tables`, the `id` of a feed event.
///
/// Binary, authenticated with a feed key (``FeedKeyRing``), then base64url; clients never parse it.
/// Layout: version (1) · key id (4) · epoch (16) · issued at (8) · cursor · window end (flag, cursor)
/// · keys already sent of the window (4) · query fingerprint (16) · rights fingerprint (16) · MAC (16).
/// A cursor is a tag (1: SQLite position, 8 bytes; 2: PostgreSQL snapshot, xmin and xmax 8 bytes
/// each, a count of 2 bytes, 8 bytes per transaction in progress).
package struct FeedToken: Sendable, Equatable {
    static let currentVersion: UInt8 = 1
    package static let fingerprintSize = 16

    /// The change log's epoch (``ChangeLogInfo/epoch``): tracking restarted, or another database.
    package var epoch: [UInt8]
    /// Seconds since 1970.
    package var issuedAt: Int64
    /// Everything up to here was delivered.
    package var cursor: ChangeCursor
    /// Inside a delta that spans pages: where its window ends, and how many of its keys the pages
    /// before sent. Nil for a token that starts a new window.
    package var windowEnd: ChangeCursor?
    package var sent: UInt32 = 0
    /// ``FeedFingerprint`` of the query the token was issued for.
    package var query: [UInt8]
    /// ``FeedFingerprint`` of the caller's rights when it was issued.
    package var rights: [UInt8]

    package init(epoch: [UInt8], issuedAt: Int64, cursor: ChangeCursor, windowEnd: ChangeCursor? = nil, sent: UInt32 = 0, query: [UInt8], rights: [UInt8]) {
        self.epoch = epoch
        self.issuedAt = issuedAt
        self.cursor = cursor
        self.windowEnd = windowEnd
        self.sent = sent
        self.query = query
        self.rights = rights
    }

    /// Why a token cannot be followed; every case is answered `410 Gone` with a message to reload.
    package enum Refusal: Error, Equatable {
        case malformed
        case unknownKey
        case forged
    }

    /// The token as text, authenticated with the ring's current key.
    package func encoded(with ring: FeedKeyRing) throws -> String {
        let (id, key) = try ring.signingKey()
        var bytes: [UInt8] = [Self.currentVersion]
        Self.append(id, to: &bytes)
        bytes += epoch
        Self.append(UInt64(bitPattern: issuedAt), to: &bytes)
        Self.append(cursor, to: &bytes)
        if let windowEnd {
            bytes.append(1)
            Self.append(windowEnd, to: &bytes)
        } else {
            bytes.append(0)
        }
        Self.append(sent, to: &bytes)
        bytes += query
        bytes += rights
        bytes += Self.mac(bytes, key: key)
        return Base64URL.encode(bytes)
    }

    /// Reads and verifies a token.
    package static func decode(_ text: String, with ring: FeedKeyRing) async throws(Refusal) -> FeedToken {
        guard text.utf8.count <= 4096, let bytes = Base64URL.decode(text), bytes.count > 16 + 5 else { throw .malformed }
        var reader = Reader(bytes: bytes.dropLast(16))
        guard let version = reader.byte(), version == currentVersion, let id = reader.uint32() else { throw .malformed }
        guard let key = await ring.key(id: id) else { throw .unknownKey }
        let expected = mac(Array(bytes.dropLast(16)), key: key)
        // Constant-time comparison: a forger learns nothing from how long a refusal took.
        guard expected.count == 16, zip(expected, bytes.suffix(16)).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0 else { throw .forged }
        guard let epoch = reader.bytes(16), let issued = reader.uint64(), let cursor = reader.cursor(),
              let hasEnd = reader.byte(), hasEnd <= 1 else { throw .malformed }
        let windowEnd = hasEnd == 1 ? reader.cursor() : nil
        guard hasEnd == 0 || windowEnd != nil, let sent = reader.uint32(), let query = reader.bytes(fingerprintSize),
              let rights = reader.bytes(fingerprintSize), reader.isAtEnd else { throw .malformed }
        return FeedToken(epoch: epoch, issuedAt: Int64(bitPattern: issued), cursor: cursor, windowEnd: windowEnd, sent: sent,
                         query: query, rights: rights)
    }

    private static func mac(_ bytes: [UInt8], key: SymmetricKey) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: bytes, using: key).prefix(16))
    }

    private static func append(_ value: some FixedWidthInteger, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes += $0 }
    }

    private static func append(_ cursor: ChangeCursor, to bytes: inout [UInt8]) {
        switch cursor {
        case .position(let position):
            bytes.append(1)
            append(UInt64(bitPattern: position), to: &bytes)
        case .snapshot(let snapshot):
            bytes.append(2)
            append(snapshot.xmin, to: &bytes)
            append(snapshot.xmax, to: &bytes)
            append(UInt16(clamping: snapshot.inProgress.count), to: &bytes)
            for xid in snapshot.inProgress.prefix(Int(UInt16.max)) { append(xid, to: &bytes) }
        }
    }

    private struct Reader {
        var bytes: ArraySlice<UInt8>

        var isAtEnd: Bool { bytes.isEmpty }

        mutating func byte() -> UInt8? { bytes.popFirst() }

        mutating func bytes(_ count: Int) -> [UInt8]? {
            guard bytes.count >= count else { return nil }
            defer { bytes = bytes.dropFirst(count) }
            return Array(bytes.prefix(count))
        }

        mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
            guard let raw = bytes(MemoryLayout<T>.size) else { return nil }
            return raw.reduce(T(0)) { $0 << 8 | T($1) }
        }

        mutating func uint16() -> UInt16? { integer(UInt16.self) }
        mutating func uint32() -> UInt32? { integer(UInt32.self) }
        mutating func uint64() -> UInt64? { integer(UInt64.self) }

        mutating func cursor() -> ChangeCursor? {
            switch byte() {
            case 1:
                return uint64().map { .position(Int64(bitPattern: $0)) }
            case 2:
                guard let xmin = uint64(), let xmax = uint64(), let count = uint16() else { return nil }
                var xids: [UInt64] = []
                for _ in 0..<count {
                    guard let xid = uint64() else { return nil }
                    xids.append(xid)
                }
                return .snapshot(PostgresSnapshot(xmin: xmin, xmax: xmax, inProgress: xids))
            default:
                return nil
            }
        }
    }
}
