import Foundation
import Hummingbird
import NIOCore
import StrataCore
import StrataIdentity
import StrataOData
import StrataStorage

extension AdminRoutes {
    /// `/admin/model?service=`: a service's model file as `strata service model NAME` reads,
    /// applies (`--apply`) and removes (`--remove`) it. `PUT` takes the file's text as the body
    /// (any text media type); a file that does not fit is a 400 whose message starts with
    /// `line N:` and whose `target` is `line N`, and changes nothing. An applied or removed file
    /// is served at once here and announced to the other servers on the system database.
    static func registerModel(on group: RouterGroup<StrataRequestContext>, runtime: StrataRuntime) {
        group.get("model") { request, context in
            context.setRoute("admin.model")
            let service = try await existingService(request, runtime)
            guard let stored = try await runtime.system.serviceModels()[service] else {
                throw ODataError.notFound("The service '\(service)' has no model file; it is served as its catalog describes it.")
            }
            return Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                            body: .init(byteBuffer: ByteBuffer(string: stored.text)))
        }
        group.put("model") { request, context in
            context.setRoute("admin.model")
            let service = try await existingService(request, runtime)
            let media = request.headers[.contentType]?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let media, media.hasPrefix("text/") || media == "application/yaml" else {
                throw ODataError.unsupportedMediaType("Send the model file as text/plain.")
            }
            let buffer = try await request.body.collect(upTo: AdminJSON.maximumBodySize)
            guard let text = String(validating: buffer.readableBytesView, as: UTF8.self) else {
                throw ODataError.badRequest("The model file is not UTF-8 text.")
            }
            do {
                _ = try await Administration.storeModelFile(text, path: "model file", to: service, store: runtime.store,
                                                            system: runtime.system, logger: runtime.logger)
            } catch let error as ModelFileError {
                throw ODataError(status: 400, code: "BadRequest", message: error.line.map { "line \($0): \(error.message)" } ?? error.message,
                                 target: error.line.map { "line \($0)" })
            }
            try await reload(runtime, service)
            return Response(status: .noContent)
        }
        group.delete("model") { request, context in
            context.setRoute("admin.model")
            let service = try await existingService(request, runtime)
            guard try await runtime.system.removeModel(for: service) else {
                throw ODataError.notFound("The service '\(service)' has no model file.")
            }
            try await reload(runtime, service)
            return Response(status: .noContent)
        }
    }

    /// The `service=` of the query, which must name a service of the store.
    private static func existingService(_ request: Request, _ runtime: StrataRuntime) async throws -> String {
        let service = try AdminJSON.query(request, "service")
        guard try await runtime.store.discover().contains(where: { $0.name == service }) else {
            throw try await Administration.noService(service, runtime.store)
        }
        return service
    }

    private static func reload(_ runtime: StrataRuntime, _ service: String) async throws {
        let report = try await runtime.reloadEverywhere()
        if let refused = report.refused[service] {
            throw ODataError(status: 400, code: "BadRequest", message: refused.line.map { "line \($0): \(refused.message)" } ?? refused.message,
                             target: refused.line.map { "line \($0)" })
        }
    }

    /// `POST /admin/users/sign-out` and `POST /admin/preview-token`.
    static func registerSessions(on group: RouterGroup<StrataRequestContext>, admin: Administration, auth: AuthRuntime) {
        group.post("users/sign-out") { request, context in
            context.setRoute("admin.users")
            let body = try await AdminJSON.body(request)
            try await admin.signOutEverywhere(try AdminJSON.string(body, "username"))
            return Response(status: .noContent)
        }
        group.post("preview-token") { request, context in
            context.setRoute("admin.preview")
            guard let principal = context.principal, !principal.preview, principal.issuer == nil else {
                throw AuthErrors.forbidden("Only an administrator's account asks for a preview.")
            }
            let body = try await AdminJSON.body(request)
            guard let names = body["roles"]?.arrayValue, !names.isEmpty, names.count <= 16 else {
                throw ODataError.badRequest("The body needs roles: a list of 1 to 16 role names (reader, clerk@cardealer).")
            }
            var roles: [RoleAssignment] = []
            for value in names {
                let assignment = try AdminJSON.assignment(value.stringValue ?? "")
                try AuthNames.checkRole(assignment.role)
                if let service = assignment.service { _ = try await admin.requireModel(service) }
                guard assignment.role != BuiltInRole.admin.rawValue else {
                    throw ODataError.badRequest("A preview never holds the admin role: an administrator sees everything already.")
                }
                roles.append(assignment)
            }
            let lifetime: Int64 = 300
            let token = try await auth.tokens.signPreview(admin: principal.subject, roles: roles, lifetime: lifetime, now: auth.settings.now())
            let answer = AdminJSON.object([("access_token", .string(token)), ("token_type", .string("Bearer")),
                                           ("expires_in", .number(String(lifetime))),
                                           ("roles", .array(roles.map { .string($0.description) }))])
            return Response(status: .created, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                            body: .init(byteBuffer: .init(bytes: answer)))
        }
    }
}
