import Foundation
import StrataCore

/// The changes of one committed transaction, as a change stream delivers them.
public struct ChangeBatch: Sendable, Hashable {
    /// Per table: the rows inserted or changed (current values, upsert them by key) and the keys
    /// deleted or no longer readable (``CompactTable/deleted``, remove them).
    public var tables: [CompactTable]
    /// The token after this batch: resume from here (``DataService/changeStream(sets:filter:since:configuration:)``'s
    /// `since`, or ``RemoteDataAdapter/changes(in:since:wait:)``) to get only later changes.
    public var token: String

    /// A batch; the stream makes these.
    public init(tables: [CompactTable], token: String) {
        self.tables = tables
        self.token = token
    }
}

/// What a change stream delivers.
public enum ChangeStreamEvent: Sendable {
    /// The subscription is live from `token` ("now" for a first connection without a token):
    /// keep it as the resume point until the first batch arrives.
    case ready(token: String)
    /// One committed transaction's changes.
    case changes(ChangeBatch)
    /// The subscription can no longer continue (rights or model changed, tracking stopped, the
    /// token expired): the last element. Read the data again (`trackedTables(_:)`) and
    /// subscribe from the new token. The error is of kind ``StrataError/Kind/deltaTokenGone``.
    case gone(StrataError)
}

/// The live changes of data tables (`GET /{service}/$feed`, Server-Sent Events), typed: each
/// committed transaction the caller may see as one ``ChangeBatch``, in commit order.
///
/// ```swift
/// for try await event in service.changeStream(sets: ["Car", "Person"], since: token) {
///     switch event {
///     case .ready(let token): save(token)
///     case .changes(let batch): try briefcase.apply(batch); save(batch.token)
///     case .gone: reload()
///     }
/// }
/// ```
///
/// Built on ``EventStream``: it reconnects by itself with `Last-Event-ID`, so no batch is lost or
/// repeated across reconnects. It throws for failures it cannot recover from (a 4xx answer, an
/// event that is not a change document) and ends after ``ChangeStreamEvent/gone(_:)``.
public struct ChangeStream: AsyncSequence, Sendable {
    /// Each ready, changes or gone event, in order.
    public typealias Element = ChangeStreamEvent

    /// The reconnecting event stream underneath.
    public let events: EventStream

    /// A typed view of an event stream of `$feed`.
    public init(events: EventStream) {
        self.events = events
    }

    /// Starts the subscription.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: events.makeAsyncIterator())
    }

    /// Reads events and decodes them; keeps each table's fields for events that leave them out.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<ServerSentEvent, any Error>.Iterator
        var fields: [String: JSONValue] = [:]
        var finished = false

        /// The next event, or nil after `gone` or when the stream ends.
        public mutating func next() async throws -> ChangeStreamEvent? {
            guard !finished else { return nil }
            while true {
                let event: ServerSentEvent?
                do {
                    event = try await base.next()
                } catch let error as StrataError where error.kind == .deltaTokenGone {
                    finished = true
                    return .gone(error)
                }
                guard let event else { return nil }
                switch event.type {
                case "ready":
                    return .ready(token: event.id)
                case "changes":
                    return .changes(try decode(event))
                default:
                    continue // event types of later versions
                }
            }
        }

        private mutating func decode(_ event: ServerSentEvent) throws(StrataError) -> ChangeBatch {
            do {
                guard case .object(let document) = try JSONValue.parse(event.data),
                      case .array(let items)? = document["tables"] else {
                    throw DataTableFormatError("the event's data has no tables array")
                }
                var tables: [CompactTable] = []
                for (index, item) in items.enumerated() {
                    guard case .object(var object) = item, let name = object["name"]?.stringValue else {
                        throw DataTableFormatError("tables[\(index)] is not a named table object")
                    }
                    // Fields may come only with the first event of a connection (design §6).
                    if let known = object["fields"] {
                        fields[name] = known
                    } else if let known = fields[name] {
                        object["fields"] = known
                    }
                    var table = try CompactTable(json: .object(object), at: "tables[\(index)]")
                    if table.deleted == nil { table.deleted = [] }
                    tables.append(table)
                }
                return ChangeBatch(tables: tables, token: event.id)
            } catch let error as DataTableFormatError {
                throw StrataError(.invalidResponse, message: "A change event cannot be read: \(error.message).", underlying: error)
            } catch {
                throw StrataError(.invalidResponse, message: "A change event is not JSON: \(error).", underlying: error)
            }
        }
    }
}

extension DataService {
    /// Subscribes to the live changes of tables of this service (`$feed`): one ``ChangeBatch``
    /// per committed transaction the caller may see, following its grants and row filters.
    ///
    /// - Parameters:
    ///   - sets: the tables (entity sets) to follow.
    ///   - filter: a `$filter` expression (`price lt 20000`); only with one set.
    ///   - since: a token from a tracked fetch or an earlier batch; nil starts now (the first event
    ///     is then ``ChangeStreamEvent/ready(token:)``).
    ///   - configuration: reconnection rules; its `lastEventID`, if set, wins over `since`.
    public func changeStream(sets: [String], filter: String? = nil, since token: String? = nil,
                             configuration: EventStreamConfiguration = EventStreamConfiguration()) -> ChangeStream {
        var query = "sets=" + sets.map(PercentEncoding.encodeQueryValue).joined(separator: ",")
        if let filter { query += "&$filter=" + PercentEncoding.encodeQueryValue(filter) }
        if let token { query += "&since=" + PercentEncoding.encodeQueryValue(token) }
        var request = StrataRequest(.get, rootPath + "$feed?" + query)
        request.headers["MaxDataServiceVersion"] = "\(maxVersion.rawValue).0"
        return ChangeStream(events: EventStream(connection: connection, request: request, configuration: configuration))
    }
}
