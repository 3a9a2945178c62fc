import StrataCore
import StrataIdentity
import StrataStorage

/// Answers POST, PUT, MERGE, PATCH and DELETE on a resolved path: creates (with deep insert),
/// replaces, merges and deletes entities, updates single properties, and changes `$links`.
///
/// It takes the Request stage's ``WriteRequest`` (the method checked, the body parsed, the
/// entities it names resolved) and the ``WriteAccess`` the Authorization step decided for every
/// table the write touches, and runs in two phases. ``prepare()`` checks everything else that
/// does not need the database (generated and required properties, facets, read-only related
/// sets, links that cannot be removed) so that a refused request never opens a transaction. The prepared write then ``PreparedWrite/execute(in:)``s
/// on a transaction's connection: its own, or a `$batch` change set's.
package struct WriteOperation: Sendable {
    let call: ODataCall
    let request: WriteRequest
    /// The rights the Authorization step decided (``Authorizer/access(toWrite:method:)``,
    /// ``WriteAccess/including(_:)``).
    let access: WriteAccess

    package init(call: ODataCall, request: WriteRequest, access: WriteAccess) {
        self.call = call
        self.request = request
        self.access = access
    }

    var path: ResolvedPath { request.path }

    /// Runs the write in a transaction of its own.
    package func run() async throws -> WriteResult {
        let prepared = try prepare()
        return try await call.service.database.transaction { connection in
            try await prepared.execute(in: connection)
        }
    }

    package func prepare() throws -> any PreparedWrite {
        switch request.content {
        case .insert(let payload):
            return try InsertWrite.prepare(self, payload: payload)
        case .update(let payload, let replace):
            return try UpdateWrite.prepare(self, payload: payload, replace: replace)
        case .delete:
            return try DeleteWrite.prepare(self)
        case .property(let property, let value):
            return try UpdateWrite.prepareProperty(self, property: property, value: value)
        case .link(let navigation, let key, let target):
            return try LinkWrite.prepare(self, navigation: navigation, key: key, target: target)
        }
    }

    // MARK: Shared checks

    /// The `If-Match` condition; 428 when the service requires one for changes and none was sent.
    func ifMatchCondition() throws(ODataError) -> EntityTagCondition? {
        if request.condition == nil, call.service.settings.requireIfMatch {
            throw .preconditionRequired("The service \(call.service.name) requires If-Match on changes: send the entity's ETag (from a GET) or If-Match: *.")
        }
        return request.condition
    }

    /// The caller's right to do `action` on `set`, as the Authorization step decided it.
    func rights(_ action: TableAction, _ set: EntitySet) throws(ODataError) -> RowAccess {
        try access.rights(action, set.name)
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
            return .notFound("\(ResolvedPath.describe(prefix.dropLast())) has no related \(via.name).")
        }
        return .notFound("The entity \(ResolvedPath.describe(prefix)) does not exist.")
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
