import HTTPTypes
import Hummingbird
import NIOCore
import StrataCore
import StrataIdentity
import StrataOData

/// `/admin/…`: the CLI's account, grant and issuer operations over HTTP, for callers holding the
/// `admin` role for every service. Bodies are JSON; names that are keys of a removal travel as
/// query parameters, so that issuer URLs need no path escaping.
///
/// | route | does |
/// |---|---|
/// | `GET /admin/users` | accounts with their roles |
/// | `POST /admin/users` `{"username","password","roles":["editor","reader@hockey"]}` | creates an account (201) |
/// | `POST /admin/users/password` `{"username","password"}` | sets a password; the account's sign-ins end |
/// | `POST /admin/users/sign-out` `{"username"}` | ends every sign-in of the account: its access and refresh tokens stop working |
/// | `DELETE /admin/users?username=` | removes an account |
/// | `POST /admin/roles` `{"username","role","service"?}` / `DELETE /admin/roles?username=&role=&service=` | roles of accounts |
/// | `GET /admin/grants?service=` / `POST /admin/grants` `{"role","service","table"?,"actions":[…],"filter"?}` / `DELETE /admin/grants?role=&service=&table=&actions=` | table rights |
/// | `GET /admin/access` / `PUT /admin/access` `{"service","anonymous":"read"\|"none"}` | anonymous access |
/// | `GET /admin/services` / `PUT /admin/services` `{"service","pageSize"?: n\|null,"requireIfMatch"?,"allowClientKeys"?,"odataVersion"?: "2.0"\|"4.0"}` | service settings, applied at once |
/// | `POST /admin/services/reload` | reads every service's catalog and model file again; 400 naming the model files refused (those services stay as they were) |
/// | `GET /admin/issuers` / `POST /admin/issuers` `{"issuer","audience","jwks",rules?}` / `DELETE /admin/issuers?issuer=` | trusted issuers |
/// | `POST /admin/issuers/rules` `{"issuer","claim","match","value"?,"role"}` / `DELETE /admin/issuers/rules?…` | rule groups |
/// | `GET /admin/keys` / `POST /admin/keys/rotate` `{"algorithm"?: "HS256"\|"ES256"}` | token signing keys (never their material); a rotation answers 201 with the new key |
/// | `GET /admin/providers` / `POST /admin/providers` `{"name","issuer","clientId","clientSecret"?,…}` / `DELETE /admin/providers?name=` | identity providers of hosted sign-in (never their secrets) |
/// | `GET /admin/sign-in` / `PUT /admin/sign-in` `{"service","redirectUris"?,"signUp"?,"signUpRole"?}` | each service's redirect URIs and sign-up |
/// | `GET /admin/model?service=` / `PUT /admin/model?service=` (body: the file, `text/plain`) / `DELETE /admin/model?service=` | a service's model file (404 without one); a refused file is a 400 whose message starts `line N:` (target `line N`) and changes nothing; applied and removed files are served at once |
/// | `POST /admin/preview-token` `{"roles":["clerk@cardealer"]}` | a role preview: a token (201, `access_token`, 300 s) whose caller holds exactly those roles |
/// | `GET /admin/container-grants` / `POST /admin/container-grants` `{"role","container"?,"actions":[…]}` / `DELETE /admin/container-grants?role=&container=&actions=` | rights on blob containers |
///
/// **Role preview.** An administrator sees what a role sees through the same public API any
/// client uses, not through a second evaluation of the rules: `POST /admin/preview-token` signs a
/// Strata access token whose subject is `preview:<admin>` and whose roles are exactly the ones asked
/// for (never `admin`). It has no sign-in and no refresh token, lives 300 seconds, stops working
/// when its administrator loses `admin` or is removed, and reads only: any method other than GET
/// and HEAD is refused (403) before routing. Row filters with `$claims.sub` see `preview:<admin>`.
enum AdminRoutes {
    static func register(on router: Router<StrataRequestContext>, runtime: StrataRuntime, auth: AuthRuntime) {
        let admin = Administration(
            store: auth.store, hasher: auth.hasher, model: { name in runtime.service(named: name)?.model }, now: auth.settings.now,
            signingKeys: auth.tokens.ring.store)
        let group = router.group("admin").add(middleware: AdminOnly())

        group.get("users") { _, context in
            context.setRoute("admin.users")
            return AdminJSON.respond(AdminJSON.users(try await admin.listUsers()))
        }
        group.post("users") { request, context in
            context.setRoute("admin.users")
            let body = try await AdminJSON.body(request)
            let roles = try (body["roles"]?.arrayValue ?? []).map { value throws(ODataError) in
                try AdminJSON.assignment(value.stringValue ?? "")
            }
            try await admin.addUser(try AdminJSON.string(body, "username"), password: try AdminJSON.string(body, "password"), roles: roles)
            return Response(status: .created)
        }
        group.post("users/password") { request, context in
            context.setRoute("admin.users")
            let body = try await AdminJSON.body(request)
            try await admin.setPassword(try AdminJSON.string(body, "username"), password: try AdminJSON.string(body, "password"))
            return Response(status: .noContent)
        }
        group.delete("users") { request, context in
            context.setRoute("admin.users")
            try await admin.removeUser(try AdminJSON.query(request, "username"))
            return Response(status: .noContent)
        }
        group.post("roles") { request, context in
            context.setRoute("admin.roles")
            let body = try await AdminJSON.body(request)
            let assignment = RoleAssignment(role: try AdminJSON.string(body, "role"), service: body["service"]?.stringValue)
            try await admin.grantRole(assignment, to: try AdminJSON.string(body, "username"))
            return Response(status: .noContent)
        }
        group.delete("roles") { request, context in
            context.setRoute("admin.roles")
            let assignment = RoleAssignment(role: try AdminJSON.query(request, "role"), service: AdminJSON.optionalQuery(request, "service"))
            guard try await admin.revokeRole(assignment, from: try AdminJSON.query(request, "username")) else {
                throw ODataError.notFound("The account does not hold \(assignment).")
            }
            return Response(status: .noContent)
        }
        group.get("grants") { request, context in
            context.setRoute("admin.grants")
            return AdminJSON.respond(AdminJSON.grants(try await admin.listGrants(service: AdminJSON.optionalQuery(request, "service"))))
        }
        group.post("grants") { request, context in
            context.setRoute("admin.grants")
            let body = try await AdminJSON.body(request)
            let actions = try AdminJSON.actions((body["actions"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ","))
            try await admin.grant(role: try AdminJSON.string(body, "role"), service: try AdminJSON.string(body, "service"),
                                  table: body["table"]?.stringValue, actions: actions, rowFilter: body["filter"]?.stringValue)
            return Response(status: .noContent)
        }
        group.delete("grants") { request, context in
            context.setRoute("admin.grants")
            let actions = try AdminJSON.optionalQuery(request, "actions").map { text throws(ODataError) in try AdminJSON.actions(text) }
            let removed = try await admin.revoke(role: try AdminJSON.query(request, "role"), service: try AdminJSON.query(request, "service"),
                                                 table: AdminJSON.optionalQuery(request, "table"), actions: actions)
            return AdminJSON.respond(AdminJSON.object([("removed", .number(String(removed)))]))
        }
        group.get("access") { _, context in
            context.setRoute("admin.access")
            let access = try await admin.anonymousAccess()
            return AdminJSON.respond(AdminJSON.object(access.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value.rawValue)) }))
        }
        group.put("access") { request, context in
            context.setRoute("admin.access")
            let body = try await AdminJSON.body(request)
            guard let access = AnonymousAccess(rawValue: try AdminJSON.string(body, "anonymous")) else {
                throw ODataError.badRequest("anonymous must be read or none.")
            }
            try await admin.setAnonymousAccess(access, service: try AdminJSON.string(body, "service"))
            return Response(status: .noContent)
        }
        group.get("services") { _, context in
            context.setRoute("admin.services")
            return AdminJSON.respond(AdminJSON.services(try await admin.serviceSettings()))
        }
        group.put("services") { request, context in
            context.setRoute("admin.services")
            let body = try await AdminJSON.body(request)
            let service = try AdminJSON.string(body, "service")
            let settings = try await admin.configureService(
                service, pageSize: try AdminJSON.pageSize(body["pageSize"]), requireIfMatch: try AdminJSON.optionalBool(body, "requireIfMatch"),
                statementTimeout: try AdminJSON.statementTimeout(body["statementTimeout"]),
                allowClientKeys: try AdminJSON.optionalBool(body, "allowClientKeys"),
                odataVersion: try AdminJSON.odataVersion(body["odataVersion"]))
            // Services keep their settings from when they were loaded; load them again so the change applies now.
            try await runtime.reloadServices()
            return AdminJSON.respond(AdminJSON.services([service: settings]))
        }
        group.post("services/reload") { _, context in
            context.setRoute("admin.services.reload")
            let report = try await runtime.reloadEverywhere()
            guard report.refused.isEmpty else {
                let errors = report.refused.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.description)" }
                throw ODataError.badRequest("Model files refused; these services are served as before. \(errors.joined(separator: " "))")
            }
            return AdminJSON.respond(AdminJSON.object([("loaded", .array(report.loaded.sorted().map { .string($0) }))]))
        }
        group.get("issuers") { _, context in
            context.setRoute("admin.issuers")
            return AdminJSON.respond(AdminJSON.issuers(try await admin.listIssuers()))
        }
        group.post("issuers") { request, context in
            context.setRoute("admin.issuers")
            let body = try await AdminJSON.body(request)
            let jwks: String
            switch body["jwks"] {
            case .string(let text)?: jwks = text
            case .object(let object)?: jwks = JSONValue.object(object).jsonString
            default: throw ODataError.badRequest("jwks must be a JWKS document (an object, or its text).")
            }
            let rules = try body["rules"]?.arrayValue.map { items throws(ODataError) in try items.map(AdminJSON.rule) }
            try await admin.putIssuer(issuer: try AdminJSON.string(body, "issuer"), audience: try AdminJSON.string(body, "audience"),
                                      jwks: jwks, rules: rules)
            return Response(status: .noContent)
        }
        group.delete("issuers") { request, context in
            context.setRoute("admin.issuers")
            try await admin.removeIssuer(try AdminJSON.query(request, "issuer"))
            return Response(status: .noContent)
        }
        group.post("issuers/rules") { request, context in
            context.setRoute("admin.issuers")
            let body = try await AdminJSON.body(request)
            try await admin.addRule(try AdminJSON.rule(.object(body)), issuer: try AdminJSON.string(body, "issuer"))
            return Response(status: .noContent)
        }
        registerContainerGrants(on: group, admin: admin)
        registerKeys(on: group, admin: admin, auth: auth)
        registerModel(on: group, runtime: runtime)
        registerSessions(on: group, admin: admin, auth: auth)
        registerProviders(on: group, admin: admin)
        group.delete("issuers/rules") { request, context in
            context.setRoute("admin.issuers")
            var fields = JSONObject()
            for name in ["claim", "match", "value", "role"] {
                if let value = AdminJSON.optionalQuery(request, name) { fields[name] = .string(value) }
            }
            guard try await admin.removeRule(try AdminJSON.rule(.object(fields)), issuer: try AdminJSON.query(request, "issuer")) else {
                throw ODataError.notFound("The issuer has no such rule.")
            }
            return Response(status: .noContent)
        }
    }
}

/// Lets through callers holding `admin` for every service: 401 without credentials, 403 without the role.
struct AdminOnly: RouterMiddleware {
    typealias Context = StrataRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let principal = context.principal else {
            throw AuthErrors.unauthenticated("Sign in as an administrator to use /admin.")
        }
        guard principal.roles.contains(BuiltInRole.admin.rawValue) else {
            throw AuthErrors.forbidden("\(principal.subject) does not hold the admin role (for every service).")
        }
        return try await next(request, context)
    }
}
