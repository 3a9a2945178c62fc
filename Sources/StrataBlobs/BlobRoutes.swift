import HTTPTypes
import Hummingbird
import StrataCore
import StrataIdentity

/// `/blobs…`: containers and blobs (the SpeakEasy sample's Azure-style blob storage), beside the OData services.
///
/// | route | does |
/// |---|---|
/// | `GET /blobs` | containers the caller may list |
/// | `GET /blobs/{c}?prefix=&limit=&marker=` | a page of blobs |
/// | `PUT /blobs/{c}?access=private\|public-read` / `DELETE /blobs/{c}?force=true` | create / remove a container (admin) |
/// | `PUT`, `GET`, `HEAD`, `DELETE /blobs/{c}/{name}` | a blob; the name may contain `/` |
///
/// `blobs` is a reserved service name, so these routes never hide a service.
package enum BlobRoutes {
    static let methods: [HTTPRequest.Method] = [.get, .head, .put, .delete, .post, .patch, .options, HTTPRequest.Method("MERGE")!]

    package static func register(on router: Router<StrataRequestContext>, blobs: BlobRuntime) {
        for method in methods {
            for path in ["/blobs", "/blobs/**"] {
                router.on(RouterPath(path), method: method) { request, context in
                    try await handle(request, context: context, blobs: blobs)
                }
            }
        }
    }

    static func handle(_ request: Request, context: StrataRequestContext, blobs: BlobRuntime) async throws -> Response {
        let target = try BlobTarget(rawPath: request.uri.path)
        let method = request.method, isHead = method == .head
        let principal = context.principal
        switch target {
        case .root:
            context.setRoute("blobs.containers")
            guard method == .get || isHead else {
                return BlobHeaders.methodNotAllowed(method, allowed: "GET, HEAD", resource: "/blobs")
            }
            _ = try BlobQuery(rawQuery: request.uri.query, allowed: [])
            return try await ContainerOperations(blobs: blobs, principal: principal).listContainers(headRequest: isHead)

        case .container(let name):
            context.setRoute("blobs.container")
            let operations = ContainerOperations(blobs: blobs, principal: principal)
            switch method {
            case .get, .head:
                let query = try BlobQuery(rawQuery: request.uri.query, allowed: ["prefix", "limit", "marker"])
                return try await operations.listBlobs(name, query: query, headRequest: isHead)
            case .put:
                return try await operations.create(name, query: try BlobQuery(rawQuery: request.uri.query, allowed: ["access"]))
            case .delete:
                return try await operations.remove(name, query: try BlobQuery(rawQuery: request.uri.query, allowed: ["force"]))
            default:
                return BlobHeaders.methodNotAllowed(method, allowed: "GET, HEAD, PUT, DELETE", resource: "a container")
            }

        case .blob(let container, let name):
            context.setRoute("blobs.blob")
            _ = try BlobQuery(rawQuery: request.uri.query, allowed: [])
            switch method {
            case .get, .head:
                return try await BlobDownload(blobs: blobs, container: container, name: name, headers: request.headers,
                                              isHead: isHead, principal: principal).respond()
            case .put:
                return try await BlobUpload(blobs: blobs, container: container, name: name, request: request, principal: principal).respond()
            case .delete:
                return try await BlobRemoval(blobs: blobs, container: container, name: name, headers: request.headers,
                                             principal: principal).respond()
            default:
                return BlobHeaders.methodNotAllowed(method, allowed: "GET, HEAD, PUT, DELETE", resource: "a blob")
            }
        }
    }
}
