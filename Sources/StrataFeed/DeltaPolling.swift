import StrataCore
import StrataIdentity
import StrataOData

/// Reads one page of a delta for `$tables?since=` and OData `!deltatoken`, with their long-poll:
/// `wait=N` (at most ``maximumWait`` seconds) holds an answer with no changes until the service's
/// hub reads a window with some, then reads again.
enum DeltaPolling {
    static let maximumWait = 60

    /// The request's `wait`, zero when absent.
    static func wait(_ url: ODataRequestURL) throws(ODataError) -> Duration {
        guard let text = url.value(of: ODataDelta.waitOption) else { return .zero }
        guard let seconds = Int(text), (0 ... maximumWait).contains(seconds) else {
            throw .badRequest("wait takes whole seconds from 0 to \(maximumWait).")
        }
        return .seconds(seconds)
    }

    /// The page after `token`; `subject` names what was tracked in a `410` ("these tables").
    static func page(_ reader: DeltaReader, after token: FeedToken, pageSize: Int, wait: Duration, hub: FeedHub?,
                     subject: String, reload: String) async throws -> DeltaReader.Page {
        let deadline = ContinuousClock.now + wait
        while true {
            let page: DeltaReader.Page
            do {
                page = try await reader.page(after: token.cursor, windowEnd: token.windowEnd, epoch: token.epoch, sent: Int(token.sent), pageSize: pageSize)
            } catch let gone as DeltaReader.Gone {
                switch gone {
                case .trackingChanged: throw FeedSettings.gone("Change tracking of \(subject) was switched off or restarted since the token was issued.", reload: reload)
                case .pruned: throw FeedSettings.gone("The changes since the token are older than the change retention and were pruned.", reload: reload)
                }
            }
            let remaining = deadline - ContinuousClock.now
            guard page.isEmpty, token.windowEnd == nil, remaining > .zero, let hub else { return page }
            // At most a second at a time: a change committed between this read and the hub's
            // first look at the log is then found by the next read rather than after the whole wait.
            _ = try await hub.waitForChanges(timeout: min(remaining, .seconds(1)))
        }
    }
}
