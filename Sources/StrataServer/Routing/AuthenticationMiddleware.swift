import HTTPTypes
import Hummingbird
import StrataCore
import StrataIdentity
import StrataOData

/// Sets ``StrataRequestContext/principal`` from the `Authorization` header (Bearer or Basic) of
/// every request, and gives every 401 below it the `WWW-Authenticate` challenge.
///
/// It runs inside the error middleware, so what it answers is an OData error body. Credentials
/// never reach the log: the request log records method and path only, and nothing here logs a header.
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = StrataRequestContext
    let auth: AuthRuntime

    /// The token endpoint reads credentials from its body; a stale token in the header of a client
    /// that is signing in again must not stop it.
    static let unauthenticatedPaths: [Substring] = ["/auth/token"]

    static let challenge = #"Bearer error="invalid_token""#

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        do {
            if !Self.unauthenticatedPaths.contains(request.rawPath) {
                context.principal = try await auth.authenticator.authenticate(
                    authorization: request.headers[.authorization], client: context.clientAddress(request.headers, trusting: auth.settings.trustedProxies) ?? "unknown")
            }
            if context.principal?.preview == true, request.method != .get, request.method != .head {
                // A role preview (`POST /admin/preview-token`) shows what a role sees; it changes nothing.
                throw AuthErrors.forbidden("A preview token reads only; sign in as an account to change data.")
            }
            return try await next(request, context)
        } catch let error as ODataError where error.status == 401 {
            return Self.unauthorized(error, headRequest: request.method == .head)
        } catch let error as ThrottledError {
            return Self.throttled(error, headRequest: request.method == .head)
        }
    }

    static func unauthorized(_ error: ODataError, headRequest: Bool = false) -> Response {
        var response = ODataResponse.error(error, headRequest: headRequest)
        response.headers[.wwwAuthenticate] = challenge
        return response
    }

    static func throttled(_ error: ThrottledError, headRequest: Bool = false) -> Response {
        var response = ODataResponse.error(error.odataError, headRequest: headRequest)
        response.headers[.retryAfter] = String(error.retryAfter)
        return response
    }
}
