import Foundation
import Hummingbird
import StrataCore
import StrataIdentity

extension AdminRoutes {
    /// `/admin/providers` and `/admin/sign-in`: hosted sign-in's providers (never their secrets) and
    /// each service's redirect URIs and sign-up setting, as `strata provider` and
    /// `strata service sign-in` change them.
    ///
    /// `POST /admin/providers` takes `{"name","issuer","clientId","clientSecret"?,"kind"?,"scopes"?: […],
    /// "displayName"?,"icon"?,"authorizationEndpoint"?,"tokenEndpoint"?,"userInfoEndpoint"?,
    /// "passProviderToken"?,"rules"?: ["email suffix @example.org editor"],"claims"?: ["pass email"]}`.
    /// `PUT /admin/sign-in` takes `{"service","redirectUris"?: […],"signUp"?: bool,"signUpRole"?: role|null}`.
    static func registerProviders(on group: RouterGroup<StrataRequestContext>, admin: Administration) {
        group.get("providers") { _, context in
            context.setRoute("admin.providers")
            return AdminJSON.respond(AdminJSON.object([("providers", .array(try await admin.listProviders().map(providerJSON)))]))
        }
        group.post("providers") { request, context in
            context.setRoute("admin.providers")
            let body = try await AdminJSON.body(request)
            let (provider, secret) = try provider(from: body)
            try await admin.putProvider(provider, secret: secret)
            return Response(status: .created)
        }
        group.delete("providers") { request, context in
            context.setRoute("admin.providers")
            try await admin.removeProvider(try AdminJSON.query(request, "name"))
            return Response(status: .noContent)
        }
        group.get("sign-in") { _, context in
            context.setRoute("admin.sign-in")
            let services = try await admin.serviceSignIns().sorted { $0.key < $1.key }.map { name, settings in
                JSONValue.object(JSONObject([
                    (key: "service", value: .string(name)),
                    (key: "redirectUris", value: .array(settings.redirectURIs.map(JSONValue.string))),
                    (key: "signUp", value: .bool(settings.allowsSignUp)),
                    (key: "signUpRole", value: settings.signUpRole.map(JSONValue.string) ?? .null),
                ]))
            }
            return AdminJSON.respond(AdminJSON.object([("services", .array(services))]))
        }
        group.put("sign-in") { request, context in
            context.setRoute("admin.sign-in")
            let body = try await AdminJSON.body(request)
            var role: SettingChange<String>?
            switch body["signUpRole"] {
            case nil: role = nil
            case .null?: role = .serverDefault
            case .string(let name)?: role = .value(name)
            default: throw ODataError.badRequest("signUpRole is a role name or null.")
            }
            let uris = try body["redirectUris"].map { value throws(ODataError) -> [String] in
                guard let items = value.arrayValue, items.allSatisfy({ $0.stringValue != nil }) else {
                    throw .badRequest("redirectUris is a list of URIs.")
                }
                return items.compactMap(\.stringValue)
            }
            let signUp: Bool?
            switch body["signUp"] {
            case nil: signUp = nil
            case .bool(let flag)?: signUp = flag
            default: throw ODataError.badRequest("signUp is true or false.")
            }
            try await admin.configureSignIn(try AdminJSON.string(body, "service"), redirectURIs: uris, allowsSignUp: signUp, signUpRole: role)
            return Response(status: .noContent)
        }
    }

    private static func provider(from body: JSONObject) throws(ODataError) -> (IdentityProvider, ProviderSecret?) {
        func text(_ name: String) throws(ODataError) -> String? {
            guard let value = body[name] else { return nil }
            guard let text = value.stringValue else { throw .badRequest("\(name) is a string.") }
            return text
        }
        func list(_ name: String) throws(ODataError) -> [String]? {
            guard let value = body[name] else { return nil }
            guard let items = value.arrayValue, items.allSatisfy({ $0.stringValue != nil }) else { throw .badRequest("\(name) is a list of strings.") }
            return items.compactMap(\.stringValue)
        }
        let kindName = try text("kind") ?? "oidc"
        guard let kind = IdentityProvider.Kind(rawValue: kindName) else { throw .badRequest("kind is oidc or oauth2, not \(kindName).") }
        var roleRules: [ClaimRule] = [], claimRules: [ClaimOutput] = []
        for rule in try list("rules") ?? [] { roleRules.append(try ClaimRule(parsing: rule)) }
        for rule in try list("claims") ?? [] { claimRules.append(try ClaimOutput(parsing: rule)) }
        let provider = IdentityProvider(
            name: try AdminJSON.string(body, "name"), kind: kind, issuer: try AdminJSON.string(body, "issuer"),
            clientID: try AdminJSON.string(body, "clientId"), scopes: try list("scopes") ?? ["openid", "profile", "email"],
            displayName: try text("displayName"), iconURL: try text("icon"), authorizationEndpoint: try text("authorizationEndpoint"),
            tokenEndpoint: try text("tokenEndpoint"), userInfoEndpoint: try text("userInfoEndpoint"),
            passesProviderToken: body["passProviderToken"] == .bool(true), roleRules: roleRules, claimRules: claimRules)
        return (provider, try text("clientSecret").map(ProviderSecret.init))
    }

    /// A provider as listings show it: `hasSecret`, never the secret.
    private static func providerJSON(_ provider: IdentityProvider) -> JSONValue {
        let optional: (String?) -> JSONValue = { $0.map(JSONValue.string) ?? .null }
        return .object(JSONObject([
            (key: "name", value: .string(provider.name)),
            (key: "kind", value: .string(provider.kind.rawValue)),
            (key: "issuer", value: .string(provider.issuer)),
            (key: "clientId", value: .string(provider.clientID)),
            (key: "hasSecret", value: .bool(provider.hasSecret)),
            (key: "scopes", value: .array(provider.scopes.map(JSONValue.string))),
            (key: "displayName", value: .string(provider.displayName)),
            (key: "icon", value: optional(provider.iconURL)),
            (key: "authorizationEndpoint", value: optional(provider.authorizationEndpoint)),
            (key: "tokenEndpoint", value: optional(provider.tokenEndpoint)),
            (key: "userInfoEndpoint", value: optional(provider.userInfoEndpoint)),
            (key: "passProviderToken", value: .bool(provider.passesProviderToken)),
            // In the form POST takes, so that a listed provider can be sent back unchanged.
            (key: "rules", value: .array(provider.roleRules.map { .string($0.parseableText) })),
            (key: "claims", value: .array(provider.claimRules.map { .string($0.parseableText) })),
        ]))
    }
}
