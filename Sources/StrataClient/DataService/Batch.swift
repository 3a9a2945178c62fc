import Foundation
import StrataCore

/// Several operations sent as one `$batch` request: reads, and change sets whose writes the server
/// applies all together or not at all.
///
/// ```swift
/// var batch = service.batch()
/// batch.get(service.set("Person").key(1))
/// try batch.changeSet { changes in
///     let ann = try changes.create(in: service.set("Person"), NewPerson(firstName: "Ann", lastName: "Lee"))
///     try changes.create(in: ann.navigate("PersonCar"), NewLink(carID: 5))
///     try changes.update(service.set("Person").key(2), PersonChanges(ssn: "123456789"))
/// }
/// let results = try await batch.send()
/// let bob = try results[0].responses[0].entity()
/// ```
/// Inside a change set, ``ChangeSet/create(in:_:)`` returns a ``ContentReference`` (`$1`) that later
/// operations of the same change set can address, such as the new person's `PersonCar` collection.
public struct Batch: Sendable {
    /// The service the batch is sent to.
    public let service: DataService
    var parts: [Part] = []

    enum Part: Sendable {
        case query(String)
        case changeSet([Operation])
    }

    struct Operation: Sendable {
        var method: StrataRequest.Method
        /// Relative to the service root, or `$n/…` for a content reference.
        var path: String
        var body: [UInt8]?
        var ifMatch: IfMatch
        var contentID: Int
    }

    /// An empty batch for `service`; ``DataService/batch()`` does the same.
    public init(service: DataService) {
        self.service = service
    }

    /// The number of parts: each query and each change set is one.
    public var count: Int { parts.count }

    /// Adds a read; its response is one ``BatchPartResult`` with one response.
    public mutating func get(_ query: ODataQuery) {
        parts.append(.query(query.servicePath))
    }

    /// Adds a change set built by `build`; its writes succeed or fail together.
    ///
    /// Rethrows what `build` throws: the ``ChangeSet`` methods throw ``StrataError`` when a body
    /// cannot be encoded. (The closure is not typed-throwing because Swift does not yet infer a typed
    /// error for closures, which would make every caller spell it out.)
    public mutating func changeSet(_ build: (inout ChangeSet) throws -> Void) rethrows {
        var changeSet = ChangeSet(nextContentID: parts.reduce(1) { count, part in
            if case .changeSet(let operations) = part { return count + operations.count }
            return count
        })
        try build(&changeSet)
        guard !changeSet.operations.isEmpty else { return }
        parts.append(.changeSet(changeSet.operations))
    }
}

/// The writes of one change set, applied atomically by the server.
public struct ChangeSet: Sendable {
    var operations: [Batch.Operation] = []
    var nextContentID: Int

    init(nextContentID: Int) {
        self.nextContentID = nextContentID
    }

    @discardableResult
    private mutating func add(_ method: StrataRequest.Method, _ path: String, body: [UInt8]?, ifMatch: IfMatch) -> ContentReference {
        let id = nextContentID
        nextContentID += 1
        operations.append(Batch.Operation(method: method, path: path, body: body, ifMatch: ifMatch, contentID: id))
        return ContentReference(id: id, path: "$\(id)")
    }

    /// Creates an entity in a collection; the returned reference addresses it in later operations.
    @discardableResult
    public mutating func create(in collection: ODataQuery, _ value: some Encodable) throws(StrataError) -> ContentReference {
        add(.post, collection.servicePath, body: try ODataQuery.encode(value), ifMatch: .none)
    }

    /// Creates an entity in a collection of an entity created earlier in this change set.
    @discardableResult
    public mutating func create(in collection: ContentReference, _ value: some Encodable) throws(StrataError) -> ContentReference {
        add(.post, collection.path, body: try ODataQuery.encode(value), ifMatch: .none)
    }

    /// Changes some properties of an entity (`MERGE`).
    public mutating func update(_ entity: ODataQuery, _ changes: some Encodable, ifMatch: IfMatch = .tracked) throws(StrataError) {
        add(.merge, entity.servicePath, body: try ODataQuery.encode(changes), ifMatch: ifMatch)
    }

    /// Replaces an entity (`PUT`).
    public mutating func replace(_ entity: ODataQuery, with value: some Encodable, ifMatch: IfMatch = .tracked) throws(StrataError) {
        add(.put, entity.servicePath, body: try ODataQuery.encode(value), ifMatch: ifMatch)
    }

    /// Deletes an entity.
    public mutating func delete(_ entity: ODataQuery, ifMatch: IfMatch = .tracked) {
        add(.delete, entity.servicePath, body: nil, ifMatch: ifMatch)
    }
}

/// An entity created earlier in the same change set, addressed by its `Content-ID` as `$1`.
public struct ContentReference: Sendable, Hashable {
    /// The `Content-ID`.
    public let id: Int
    /// `$1`, or `$1/PersonCar` after ``navigate(_:)``.
    public let path: String

    /// The reference followed by a navigation property: `$1/PersonCar`.
    public func navigate(_ navigationProperty: String) -> ContentReference {
        ContentReference(id: id, path: path + "/" + PercentEncoding.encodePathSegmentName(navigationProperty))
    }
}

extension ODataQuery {
    /// The query's path and options relative to the service root, as batch request lines write it.
    var servicePath: String {
        let query = options.queryString
        return path.urlText + (query.isEmpty ? "" : "?" + query)
    }
}

extension DataService {
    /// An empty batch for this service.
    public func batch() -> Batch {
        Batch(service: self)
    }
}
