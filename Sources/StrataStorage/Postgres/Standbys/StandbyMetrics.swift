/// Hears what the standbys do, for `/metrics`: each standby's lag and state when it is polled, and
/// the reads it served or failed. Standbys are named by host and port (never the password).
package struct StandbyMetrics: Sendable {
    /// A standby was polled: whether it serves reads, and its lag (nil while it is down).
    let polled: @Sendable (_ standby: String, _ serving: Bool, _ lagBytes: UInt64?, _ lagSeconds: Double?) -> Void
    /// A read ran on the standby.
    let read: @Sendable (_ standby: String) -> Void
    /// A read on the standby failed for the standby's sake and went to the primary instead.
    let failed: @Sendable (_ standby: String) -> Void

    package init(polled: @escaping @Sendable (String, Bool, UInt64?, Double?) -> Void,
                 read: @escaping @Sendable (String) -> Void, failed: @escaping @Sendable (String) -> Void) {
        self.polled = polled
        self.read = read
        self.failed = failed
    }

    static let none = StandbyMetrics(polled: { _, _, _, _ in }, read: { _ in }, failed: { _ in })
}
