/// Told about every request a ``Connection`` sends, as the CarDealer sample's `RestConnectionDelegate` was:
/// show an activity indicator in `willSend`, log in `didReceive`, update the UI when finished.
///
/// Methods are called in the order of ``ConnectionEvent``, from the connection's isolation domain and
/// while the transfer waits, so keep them short; hop to the main actor yourself for UI work. Every
/// method has an empty default implementation.
public protocol ConnectionObserver: Sendable {
    func connection(_ connection: Connection, willSend request: SentRequest)
    func connection(_ connection: Connection, didReceive head: ResponseHead, for request: SentRequest)
    func connection(_ connection: Connection, didProgress progress: TransferProgress, for request: SentRequest)
    func connection(_ connection: Connection, didFinish response: StrataResponse, for request: SentRequest)
    func connection(_ connection: Connection, didFail error: StrataError, for request: SentRequest)
}

extension ConnectionObserver {
    public func connection(_ connection: Connection, willSend request: SentRequest) {}
    public func connection(_ connection: Connection, didReceive head: ResponseHead, for request: SentRequest) {}
    public func connection(_ connection: Connection, didProgress progress: TransferProgress, for request: SentRequest) {}
    public func connection(_ connection: Connection, didFinish response: StrataResponse, for request: SentRequest) {}
    public func connection(_ connection: Connection, didFail error: StrataError, for request: SentRequest) {}
}

/// Identifies an observer added with ``Connection/addObserver(_:)``, for removing it again.
public struct ObserverToken: Sendable, Hashable {
    let id: UInt64
}
