import Hummingbird
import StrataCore
import StrataIdentity
import StrataOData

/// The data table endpoints of the Data Abstract sample beside each OData service: `$tables` (whole tables in the
/// compact form), `$sql` (checked client SQL) and `$changes` (deltas with per-change results).
/// ``ODataEndpoint`` hands them their calls before it resolves OData paths.
package enum DataTableEndpoints {
    /// Answers the call when its path starts with one of the data table segments; nil otherwise.
    package static func respond(to call: ODataCall, authorizer: Authorizer, body: PendingBody, context: StrataRequestContext?) async throws -> Response? {
        guard let first = call.url.path.segments.first else { return nil }
        switch first.name {
        case "$tables":
            context?.setRoute("datatables.tables")
            return try await TablesOperation(call: call, authorizer: authorizer).respond()
        case "$sql", "$changes":
            context?.setRoute(first.name == "$sql" ? "datatables.sql" : "datatables.changes")
            guard call.url.path.segments.count == 1, first.key == nil else {
                throw ODataError.notFound("\(first.name) takes no path below it; POST to /\(call.service.name)/\(first.name).")
            }
            if first.name == "$sql" {
                return try await SQLQueryOperation(call: call, authorizer: authorizer, body: body.collect()).respond()
            }
            return try await ChangesOperation(call: call, authorizer: authorizer, body: body.collect()).respond()
        default:
            return nil
        }
    }
}
