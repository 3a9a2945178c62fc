import Foundation

/// How far behind the primary a standby may be and still serve reads (`--max-replica-lag`).
///
/// Time is how long ago the primary had already written past what the standby has replayed
/// (measured from the primary's log position, polled; not from commit timestamps, which stand
/// still on a quiet database); bytes are the log between the two.
package enum ReplicaLagLimit: Sendable, Equatable, CustomStringConvertible {
    case time(Duration)
    case bytes(UInt64)

    /// Reads `5s`, `500ms`, `2m`, or `16MB`, `512kB`, `1GB`, `4096B` (binary units, as PostgreSQL's settings).
    package init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
        let unit = trimmed.dropFirst(digits.count).lowercased()
        guard !digits.isEmpty, digits.count <= 12, let number = UInt64(digits) else { return nil }
        switch unit {
        case "ms": self = .time(.milliseconds(Int64(number)))
        case "s": self = .time(.seconds(Int64(number)))
        case "m", "min": self = .time(.seconds(Int64(number) * 60))
        case "b", "kb", "mb", "gb":
            let shift: UInt64 = ["b": 0, "kb": 10, "mb": 20, "gb": 30][unit] ?? 0
            guard number <= UInt64.max >> shift else { return nil }
            self = .bytes(number << shift)
        default: return nil
        }
    }

    package var description: String {
        switch self {
        case .time(let duration):
            let milliseconds = duration / .milliseconds(1)
            return milliseconds.truncatingRemainder(dividingBy: 1000) == 0 ? "\(Int64(milliseconds / 1000))s" : "\(Int64(milliseconds))ms"
        case .bytes(let bytes): return bytes % (1 << 20) == 0 ? "\(bytes >> 20)MB" : "\(bytes)B"
        }
    }
}
