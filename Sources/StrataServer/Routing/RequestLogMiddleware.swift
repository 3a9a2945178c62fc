import Hummingbird
import HummingbirdCore
import Logging

/// Logs each request's method and target, as Hummingbird's `LogRequestsMiddleware` does, except
/// that the query of `/auth/…` requests is left out: a provider's callback carries its
/// authorization code and Strata's state there, and the sign-in pages carry the app's. Headers
/// (Authorization) and bodies never reach the log.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // Inside the metadata's autoclosure: nothing is formatted when the level is above info.
        context.logger.info("Request", metadata: ["hb.request.path": .string(Self.target(request.uri)),
                                                  "hb.request.method": .string(request.method.rawValue)])
        return try await next(request, context)
    }

    static func target(_ uri: URI) -> String {
        let path = uri.path
        guard let query = uri.query else { return path }
        return path.hasPrefix("/auth/") ? "\(path)?…" : "\(path)?\(query)"
    }
}
