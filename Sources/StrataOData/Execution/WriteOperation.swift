import HTTPTypes
import StrataCore
import StrataIdentity
import StrataStorage

/// Answers POST, PUT, MERGE, PATCH and DELETE on a resolved path: creates (with deep insert),
/// replaces, merges and deletes entities, updates single properties, and changes `$links`.
///
/// A write runs in two phases, after the Authorization step decided its ``WriteAccess``.
/// ``prepare()`` checks everything that does not need the database (method, body, types, facets,
/// required properties, the rights on the other tables it touches) so that a refused request never
/// opens a transaction. The prepared write then ``PreparedWrite/execute(in:)``s
/// on a transaction's connection: its own, or a `$batch` change set's.
package struct WriteOperation: Sendable {
    let call: ODataCall
    let path: ResolvedPath
    let body: [UInt8]
    /// The rights the Authorization step decided (``Authorizer/access(toWrite:method:)``).
    let access: WriteAccess
    /// Content-IDs of the enclosing change set, for `$n` references in bodies.
    package var contentIDs: [String: String] = [:]

    package init(call: ODataCall, path: ResolvedPath, body: [UInt8], access: WriteAccess, contentIDs: [String: String] = [:]) {
        self.call = call
        self.path = path
        self.body = body
        self.access = access
        self.contentIDs = contentIDs
    }

    package static let merge = HTTPRequest.Method("MERGE")!

    /// Runs the write in a transaction of its own.
    package func run() async throws -> WriteResult {
        let prepared = try await prepare()
        return try await call.service.database.transaction { connection in
            try await prepared.execute(in: connection)
        }
    }

    package func prepare() async throws -> any PreparedWrite {
        let target = path.target
        let method = call.method
        try requireJSONBody()
        switch path.terminal {
        case .entities:
            if target.isCollection {
                guard method == .post else {
                    throw ODataError.methodNotAllowed("\(method.rawValue) needs a single entity, as in \(target.set.name)(key); POST to \(target.set.name) creates one.")
                }
                return try await InsertWrite.prepare(self)
            }
            switch method {
            case .put, .patch, Self.merge:
                return try await UpdateWrite.prepare(self, replace: method == .put)
            case .delete:
                return try await DeleteWrite.prepare(self)
            default:
                throw ODataError.methodNotAllowed("\(method.rawValue) is not supported on a single entity; use PUT, MERGE, PATCH or DELETE (POST creates entities in a collection).")
            }
        case .property(let property), .rawValue(let property):
            guard [.put, .patch, Self.merge, .delete].contains(method) else {
                throw ODataError.methodNotAllowed("\(method.rawValue) is not supported on the property \(property.name); use PUT to change it or DELETE to clear it.")
            }
            return try await UpdateWrite.prepareProperty(self, property: property)
        case .links(let navigation, let key):
            return try await LinkWrite.prepare(self, navigation: navigation, key: key)
        case .count:
            throw ODataError.methodNotAllowed("$count can only be read.")
        }
    }

    // MARK: Shared checks

    /// Bodies are JSON (verbose or bare); an Atom or XML body is refused with 415 rather than
    /// misread. A raw `$value` body may have any type.
    private func requireJSONBody() throws(ODataError) {
        guard !body.isEmpty, let mediaType = call.bodyMediaType else { return }
        if case .rawValue = path.terminal { return }
        guard ODataCall.readsAsJSON(mediaType) else {
            throw .unsupportedMediaType("Strata reads request bodies as JSON (Content-Type: application/json), not \(mediaType.prefix(60)).")
        }
    }

    /// The `If-Match` condition; 428 when the service requires one for changes and none was sent.
    func ifMatchCondition() throws(ODataError) -> EntityTagCondition? {
        let condition = try call.ifMatch()
        if condition == nil, call.service.settings.requireIfMatch {
            throw .preconditionRequired("The service \(call.service.name) requires If-Match on changes: send the entity's ETag (from a GET) or If-Match: *.")
        }
        return condition
    }

    /// The caller's right to do `action` on `set`: decided up front for the addressed table, asked
    /// now for the others.
    func authorize(_ action: TableAction, _ set: EntitySet) async throws -> RowAccess {
        try await access.authorize(action, set.name)
    }

    var references: ServiceRelativeURL {
        ServiceRelativeURL(serviceName: call.service.name, serviceRoot: call.serviceRoot, contentIDs: contentIDs)
    }

    /// `Person(1)/PersonCar(2)` for messages.
    static func describe(_ steps: ArraySlice<ResolvedPath.Step>) -> String {
        steps.map { step in
            let name = step.via?.name ?? step.set.name
            guard let key = step.key else { return name }
            return name + KeyPredicate.forKey(zip(step.type.keyNames, key).map { (name: $0, value: $1) }).urlText
        }.joined(separator: "/")
    }

    /// 404 for a path whose entity is missing, naming the first step that does not exist.
    static func notFound(_ steps: ArraySlice<ResolvedPath.Step>, writer: EntityWriter) async throws -> ODataError {
        var prefix = steps
        while prefix.count > 1 {
            let parent = prefix.dropLast()
            if try await writer.fetch(parent, columns: []) != nil { break }
            prefix = parent
        }
        let last = prefix[prefix.endIndex - 1]
        if prefix.count == steps.count, last.key == nil, let via = last.via {
            return .notFound("\(describe(prefix.dropLast())) has no related \(via.name).")
        }
        return .notFound("The entity \(describe(prefix)) does not exist.")
    }
}

/// A write that passed every check that needs no database, ready to run in a transaction.
package protocol PreparedWrite: Sendable {
    func execute(in connection: any DatabaseConnection) async throws -> WriteResult
}

/// What a write did, before it is written as a response (Serialization's ``WriteResponse``).
package enum WriteResult: Sendable {
    /// A new entity (and what a deep insert created or linked with it), as stored.
    case created(EntityRow, shape: EntityShape, tag: EntityTag, entityPath: String)
    /// A change or deletion, with the entity's new tag when it still exists.
    case noContent(etag: EntityTag?, entityPath: String?)

    /// The entity's path relative to the service root (`Person(1001)`), which a Content-ID stands for.
    package var entityPath: String? {
        switch self {
        case .created(_, _, _, let entityPath): return entityPath
        case .noContent(_, let entityPath): return entityPath
        }
    }
}
