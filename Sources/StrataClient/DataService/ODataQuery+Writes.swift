import Foundation
import StrataCore

extension ODataQuery {
    /// Creates an entity in this collection (`POST`) and returns it as the server stored it: with
    /// its generated key, defaults, and any related entities created with it (deep insert: nest
    /// them in `value` as arrays or objects under the navigation property's name).
    ///
    /// ```swift
    /// let ann = try await service.set("Person").create(NewPerson(firstName: "Ann", lastName: "Lee"))
    /// ann["personID"]  // the key the server assigned
    /// ```
    @discardableResult
    public func create(_ value: some Encodable) async throws(StrataError) -> Entity {
        try await create(body: try Self.encode(value))
    }

    /// Creates an entity and decodes the stored entity as `type`.
    public func create<T: Decodable>(_ value: some Encodable, as type: T.Type) async throws(StrataError) -> T {
        try await create(value).decode(as: type)
    }

    /// Creates an entity from property values: `create(properties: ["firstName": "Ann", "lastName": "Lee"])`.
    @discardableResult
    public func create(properties: KeyValuePairs<String, any ODataValueConvertible>) async throws(StrataError) -> Entity {
        try await create(body: Self.encode(properties))
    }

    private func create(body: [UInt8]) async throws(StrataError) -> Entity {
        let response = try await service.send(.json(.post, service.path(path), body: body))
        let entity = try ResponseReader.entity(response)
        await service.record(entity, from: response)
        return entity
    }

    /// Changes the properties `changes` encodes and leaves the others as they are (`MERGE`).
    ///
    /// Optional properties that are `nil` are not sent by synthesized `Encodable` conformances, so
    /// a struct of optionals makes a convenient change set.
    ///
    /// - Returns: the entity's new ETag, when the server sends one (it is also tracked).
    /// - Throws: ``StrataError/Kind/preconditionFailed`` when the entity changed since its ETag was
    ///   read, with ``StrataError/currentEntity`` holding the server's version.
    @discardableResult
    public func update(_ changes: some Encodable, ifMatch: IfMatch = .tracked) async throws(StrataError) -> String? {
        try await write(.merge, body: try Self.encode(changes), ifMatch: ifMatch)
    }

    /// Changes properties given as values (`MERGE`): `update(properties: ["ssn": ODataValue.null])`.
    @discardableResult
    public func update(properties: KeyValuePairs<String, any ODataValueConvertible>, ifMatch: IfMatch = .tracked) async throws(StrataError) -> String? {
        try await write(.merge, body: Self.encode(properties), ifMatch: ifMatch)
    }

    /// Replaces the entity (`PUT`): properties `value` leaves out become their defaults or null.
    @discardableResult
    public func replace(with value: some Encodable, ifMatch: IfMatch = .tracked) async throws(StrataError) -> String? {
        try await write(.put, body: try Self.encode(value), ifMatch: ifMatch)
    }

    /// Deletes the entity.
    public func delete(ifMatch: IfMatch = .tracked) async throws(StrataError) {
        try await write(.delete, body: nil, ifMatch: ifMatch)
        if let url = try? service.connection.url(for: service.path(path)) {
            await service.etags.record(nil, for: url)
        }
    }

    /// Sends a write to this entity with `If-Match`, records the new ETag, and on 412 fetches the
    /// server's current entity into the error.
    @discardableResult
    private func write(_ method: StrataRequest.Method, body: [UInt8]?, ifMatch: IfMatch) async throws(StrataError) -> String? {
        let target = service.path(path)
        let url = try service.connection.url(for: target)
        var request = body.map { StrataRequest.json(method, target, body: $0) } ?? StrataRequest(method, target)
        if let etag = await ifMatch.value(for: url, in: service.etags) {
            request.headers["If-Match"] = etag
        }
        do {
            let response = try await service.send(request)
            let etag = response.headers["ETag"]
            if let etag { await service.etags.record(etag, for: url) }
            if method != .delete, response.status == 200, let entity = try? ResponseReader.entity(response) {
                await service.record(entity, from: response)
                return etag ?? entity.etag
            }
            return etag
        } catch where error.kind == .preconditionFailed {
            var conflict = error
            conflict.currentEntity = try? await service.resource(path).get()
            throw conflict
        }
    }

    static func encode(_ value: some Encodable) throws(StrataError) -> [UInt8] {
        do {
            return try ODataEncoder().encodeBody(value)
        } catch {
            throw StrataError(.invalidRequest, message: "Cannot encode \(type(of: value)) as JSON: \(error)", underlying: error)
        }
    }

    static func encode(_ properties: KeyValuePairs<String, any ODataValueConvertible>) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        for (name, value) in properties {
            writer.key(name)
            ODataJSON.write(value.odataValue, to: &writer)
        }
        writer.endObject()
        return writer.bytes
    }
}

extension IfMatch {
    /// The header value to send, nil for none.
    func value(for url: URL?, in tracker: ETagTracker) async -> String? {
        switch self {
        case .tracked: return if let url { await tracker.etag(for: url) } else { nil }
        case .etag(let etag): return etag
        case .any: return "*"
        case .none: return nil
        }
    }
}
