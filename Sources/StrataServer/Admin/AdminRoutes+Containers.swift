import Hummingbird
import StrataCore
import StrataIdentity
import StrataBlobs

extension AdminRoutes {
    /// `/admin/container-grants`: rights of roles on blob containers. A missing `container` means
    /// every container.
    static func registerContainerGrants(on group: RouterGroup<StrataRequestContext>, admin: Administration) {
        group.get("container-grants") { _, context in
            context.setRoute("admin.containergrants")
            var writer = JSONWriter()
            writer.beginArray()
            for grant in try await admin.listContainerGrants() {
                writer.beginObject()
                writer.key("role")
                writer.string(grant.role)
                writer.key("container")
                if let container = grant.container { writer.string(container) } else { writer.null() }
                writer.key("action")
                writer.string(grant.action.rawValue)
                writer.endObject()
            }
            writer.endArray()
            return AdminJSON.respond(writer.bytes)
        }
        group.post("container-grants") { request, context in
            context.setRoute("admin.containergrants")
            let body = try await AdminJSON.body(request)
            let actions = try AdminJSON.blobActions((body["actions"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ","))
            try await admin.grantContainer(role: try AdminJSON.string(body, "role"), container: body["container"]?.stringValue, actions: actions)
            return Response(status: .noContent)
        }
        group.delete("container-grants") { request, context in
            context.setRoute("admin.containergrants")
            let actions = try AdminJSON.optionalQuery(request, "actions").map { text throws(ODataError) in try AdminJSON.blobActions(text) }
            let removed = try await admin.revokeContainer(role: try AdminJSON.query(request, "role"),
                                                          container: AdminJSON.optionalQuery(request, "container"), actions: actions)
            return AdminJSON.respond(AdminJSON.object([("removed", .number(String(removed)))]))
        }
    }
}
