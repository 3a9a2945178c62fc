import StrataCore

/// The primary's log position as the standby set polled it, over the last minutes: how far behind
/// a standby is, in bytes and in time.
///
/// Time lag is how long ago the primary had already written past what the standby has replayed
/// (the first sample beyond the standby's position), so it is zero for a standby that has caught
/// up, however long ago the last commit was — unlike `now() - pg_last_xact_replay_timestamp()`,
/// which grows on a quiet database. It is short of the truth by at most one poll interval.
struct PrimaryPositions: Sendable {
    private(set) var samples: [(at: ContinuousClock.Instant, position: ReadPosition)] = []
    /// Samples older than this are dropped (the newest is always kept).
    static let span: Duration = .seconds(600)

    mutating func add(_ position: ReadPosition, at now: ContinuousClock.Instant) {
        if let last = samples.last, last.position >= position { return }
        samples.append((now, position))
        if let first = samples.first, now - first.at > Self.span, samples.count > 1 {
            samples.removeAll { now - $0.at > Self.span }
            if samples.isEmpty { samples.append((now, position)) }
        }
    }

    /// How far `replayed` is behind the primary: nil before the primary was ever polled.
    func lag(of replayed: ReadPosition, at now: ContinuousClock.Instant) -> (bytes: UInt64, time: Duration)? {
        guard let latest = samples.last else { return nil }
        guard replayed < latest.position else { return (0, .zero) }
        let passed = samples.first { $0.position > replayed } ?? latest
        return (latest.position.offset - replayed.offset, now - passed.at)
    }
}
