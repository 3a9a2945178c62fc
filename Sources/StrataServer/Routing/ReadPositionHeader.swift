import HTTPTypes
import Hummingbird
import StrataCore
import StrataOData
import StrataStorage

/// The log position a request's caller has seen, in and out (`Strata-Position`), on a server with
/// read replicas (docs/DEPLOYMENT.md, *Standbys*).
///
/// The request's position, when it sends one, is where its reads must start: no standby that has
/// replayed less serves them. Its response carries the highest position the request saw or wrote,
/// which the caller sends back next time — to whichever server the balancer picks, since the
/// position travels with the caller and no server keeps any. Only GET and HEAD requests and `$sql`
/// queries may read standbys; others read and write the primary and still answer a position. A request that cannot
/// read the position it is given gets a 400.
enum ReadPositionHeader {
    static let name = HTTPField.Name(ReadPosition.headerName)!

    static func run(_ request: Request, _ respond: () async throws -> Response) async throws -> Response {
        var caller: ReadPosition?
        if let text = request.headers[name] {
            guard let position = ReadPosition(text) else {
                return ODataResponse.error(.badRequest(
                    "\(ReadPosition.headerName) must be a log position as this server sent it, such as 0/16B6C50, not \(text.prefix(40))"),
                    headRequest: request.method == .head)
            }
            caller = position
        }
        // `$sql` is a POST only because its query is a body; it runs SELECTs only (StrataSQL's checker).
        let reads = request.method == .get || request.method == .head || (request.method == .post && request.uri.path.hasSuffix("/$sql"))
        let scope = ReadPositionScope(caller: caller, mayReadStandbys: reads)
        var response = try await ReadPositionScope.$current.withValue(scope) { try await respond() }
        if let position = scope.position { response.headers[name] = position.description }
        return response
    }
}

extension StrataRuntime {
    /// Whether the services' reads may go to standbys, so that requests carry positions.
    var readsStandbys: Bool {
        guard case .postgres? = configuration.database else { return false }
        return !configuration.readReplicas.isEmpty
    }
}
