import Hummingbird
import StrataIdentity

/// Counts requests and measures their latency by route, method and status.
struct MetricsMiddleware: RouterMiddleware {
    typealias Context = StrataRequestContext
    let metrics: StrataMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(request, context, status: Int(response.status.code), start: start)
            return response
        } catch {
            // The error middleware runs inside this one, so errors reaching here are rare (a failed write).
            record(request, context, status: 500, start: start)
            throw error
        }
    }

    private func record(_ request: Request, _ context: Context, status: Int, start: ContinuousClock.Instant) {
        metrics.recordRequest(
            route: context.routeLabel.value, method: request.method.rawValue, status: status,
            duration: ContinuousClock.now - start)
    }
}
