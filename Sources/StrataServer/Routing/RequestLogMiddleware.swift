import Hummingbird
import Logging

/// Logs each request's method and target, as Hummingbird's `LogRequestsMiddleware` does, except
/// that the query of `/auth/…` requests is left out: a provider's callback carries its
/// authorization code and Strata's state there, and the sign-in pages carry the app's. Headers
/// (Authorization) and bodies never reach the log.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        let target = request.uri.query.map { path.hasPrefix("/auth/") ? "\(path)?…" : "\(path)?\($0)" } ?? path
        context.logger.info("Request", metadata: ["hb.request.path": .string(target), "hb.request.method": .string(request.method.rawValue)])
        return try await next(request, context)
    }
}
