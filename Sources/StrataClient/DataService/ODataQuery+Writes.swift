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
    ///
    /// In V4 a service may answer `204 No Content` with the new entity's URL in `OData-EntityId`
    /// (when asked for `Prefer: return=minimal`); the entity is then read from there.
    @discardableResult
    public func create(_ value: some Encodable) async throws(StrataError) -> Entity {
        try await create(body: try encode(value, binding: []))
    }

    /// Creates an entity linked to existing ones: `binding` sets navigation properties to
    /// entities by their URLs (V4's `@odata.bind`), as in
    /// `create(NewLink(), binding: [.to("Car", service.set("Car").key(5))])`.
    @discardableResult
    public func create(_ value: some Encodable, binding: [NavigationBinding]) async throws(StrataError) -> Entity {
        try await create(body: try encode(value, binding: binding))
    }

    /// Creates an entity and decodes the stored entity as `type`.
    public func create<T: Decodable>(_ value: some Encodable, as type: T.Type) async throws(StrataError) -> T {
        try await create(value).decode(as: type)
    }

    /// Creates an entity from property values: `create(properties: ["firstName": "Ann", "lastName": "Lee"])`.
    @discardableResult
    public func create(properties: KeyValuePairs<String, any ODataValueConvertible>) async throws(StrataError) -> Entity {
        try await create(body: encode(properties))
    }

    private func create(body: [UInt8]) async throws(StrataError) -> Entity {
        let response = try await service.send(.json(.post, service.path(path), body: body))
        if response.status == 204 || response.body.isEmpty {
            // V4's `return=minimal`: no body, the new entity's URL in OData-EntityId (or Location).
            guard let id = response.headers["OData-EntityId"] ?? response.headers["Location"],
                  let url = URL(string: id, relativeTo: response.url)?.absoluteURL else {
                throw ResponseReader.invalid(response, "The server created the entity but sent neither it nor its URL (OData-EntityId or Location)")
            }
            return try await entity(at: url)
        }
        let entity = await service.completed(try ResponseReader.entity(response), from: response)
        await service.record(entity, from: response)
        return entity
    }

    /// Reads the entity at an absolute URL, such as a created entity's `OData-EntityId`.
    private func entity(at url: URL) async throws(StrataError) -> Entity {
        let response = try await service.send(StrataRequest(.get, url.absoluteString))
        let entity = await service.completed(try ResponseReader.entity(response), from: response)
        await service.record(entity, from: response)
        return entity
    }

    /// Changes the properties `changes` encodes and leaves the others as they are (`MERGE` in V2,
    /// `PATCH` in V4).
    ///
    /// Optional properties that are `nil` are not sent by synthesized `Encodable` conformances, so
    /// a struct of optionals makes a convenient change set.
    ///
    /// - Returns: the entity's new ETag, when the server sends one (it is also tracked).
    /// - Throws: ``StrataError/Kind/preconditionFailed`` when the entity changed since its ETag was
    ///   read, with ``StrataError/currentEntity`` holding the server's version.
    @discardableResult
    public func update(_ changes: some Encodable, ifMatch: IfMatch = .tracked) async throws(StrataError) -> String? {
        try await write(partialUpdate, body: try encode(changes, binding: []), ifMatch: ifMatch)
    }

    /// Changes the properties `changes` encodes and the links `binding` gives (V4's `@odata.bind`):
    /// `update(Changes(), binding: [.to("Car", service.set("Car").key(6))])`.
    @discardableResult
    public func update(_ changes: some Encodable, binding: [NavigationBinding], ifMatch: IfMatch = .tracked) async throws(StrataError) -> String? {
        try await write(partialUpdate, body: try encode(changes, binding: binding), ifMatch: ifMatch)
    }

    /// Changes properties given as values (`MERGE` in V2, `PATCH` in V4):
    /// `update(properties: ["ssn": ODataValue.null])`.
    @discardableResult
    public func update(properties: KeyValuePairs<String, any ODataValueConvertible>, ifMatch: IfMatch = .tracked) async throws(StrataError) -> String? {
        try await write(partialUpdate, body: encode(properties), ifMatch: ifMatch)
    }

    /// V2's partial update is `MERGE`; V4 has `PATCH` instead.
    private var partialUpdate: StrataRequest.Method { service.maxVersion.isV4 ? .patch : .merge }

    /// Replaces the entity (`PUT`): properties `value` leaves out become their defaults or null.
    @discardableResult
    public func replace(with value: some Encodable, ifMatch: IfMatch = .tracked) async throws(StrataError) -> String? {
        try await write(.put, body: try encode(value, binding: []), ifMatch: ifMatch)
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
            if method != .delete, response.status == 200, let read = try? ResponseReader.entity(response) {
                let entity = await service.completed(read, from: response)
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

    /// A verbose JSON (V2) body, as a `$batch` sends it.
    static func encode(_ value: some Encodable) throws(StrataError) -> [UInt8] {
        do {
            return try ODataEncoder().encodeBody(value)
        } catch {
            throw StrataError(.invalidRequest, message: "Cannot encode \(type(of: value)) as JSON: \(error)", underlying: error)
        }
    }

    /// A body in the JSON of the service's version, with `binding`'s links added.
    func encode(_ value: some Encodable, binding: [NavigationBinding]) throws(StrataError) -> [UInt8] {
        let json: JSONValue
        do {
            json = try ODataEncoder(version: service.maxVersion).encode(value)
        } catch {
            throw StrataError(.invalidRequest, message: "Cannot encode \(type(of: value)) as JSON: \(error)", underlying: error)
        }
        var writer = JSONWriter()
        guard !binding.isEmpty else {
            json.write(to: &writer)
            return writer.bytes
        }
        guard case .object(var object) = json else {
            throw StrataError(.invalidRequest, message: "\(type(of: value)) encodes as \(json.shortDescription), not an object; an entity with links must be a struct or a dictionary")
        }
        for link in binding { try link.add(to: &object, version: service.maxVersion) }
        JSONValue.object(object).write(to: &writer)
        return writer.bytes
    }

    func encode(_ properties: KeyValuePairs<String, any ODataValueConvertible>) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        for (name, value) in properties {
            writer.key(name)
            if service.maxVersion.isV4 {
                ODataJSON.writeV4(value.odataValue, ieee754Compatible: false, to: &writer)
            } else {
                ODataJSON.write(value.odataValue, to: &writer)
            }
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
