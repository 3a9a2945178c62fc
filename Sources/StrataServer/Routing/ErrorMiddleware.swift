import Hummingbird
import StrataCore
import StrataIdentity
import StrataOData

/// Turns every error into an OData error response, so no client ever sees a stack trace or an empty
/// 500. The mapping (``ODataError/from(_:logger:)``) is Serialization's; unexpected errors are
/// logged with the request id, which the context's logger carries.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = StrataRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            // A client that asked for V4 by its headers reads V4's error body, also when the request
            // failed before its service (and so its negotiated version) was known.
            let headers = request.headers
            let v4 = ContentNegotiation.VersionRequest(odataMaxVersion: headers[ODataResponse.odataMaxVersion],
                                                       odataVersion: headers[ODataResponse.odataVersion], accept: headers[.accept])
            return ODataResponse.error(ODataError.from(error, logger: context.logger), headRequest: request.method == .head,
                                       version: v4.asksForV4 ? .v4 : .v1)
        }
    }
}
