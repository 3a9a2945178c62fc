import Foundation
import JWTKit
import Logging
import StrataCore

/// Where a provider's endpoints are: from its discovery document, or as configured.
struct ProviderEndpoints: Sendable, Hashable {
    var authorization: String
    var token: String
    var userInfo: String?
    var jwks: String?
    /// Whether the provider says it puts `iss` in authorization responses (RFC 9207).
    var sendsIssuerInResponse: Bool
}

/// Discovery documents and signing keys of identity providers, fetched when first needed and kept.
///
/// A discovery document is kept for an hour. Keys are kept until an ID token names a `kid` the set
/// lacks, then fetched again, but at most once a minute per provider: a forged `kid` cannot make
/// Strata hammer the provider, and a rotated key is picked up within a minute of its first use.
/// Each server keeps its own copies; they are public documents, the same for every server.
package actor ProviderDirectory {
    private struct KeySet {
        var kids: Set<String>
        var keys: JWTKeyCollection
        var fetchedAt: Date
    }

    private var endpoints: [String: (ProviderEndpoints, fetchedAt: Date)] = [:]
    private var keySets: [String: KeySet] = [:]
    private let now: @Sendable () -> Date
    private let logger: Logger

    static let discoveryLifetime: TimeInterval = 3600
    static let keyRefreshInterval: TimeInterval = 60

    package init(now: @escaping @Sendable () -> Date, logger: Logger) {
        self.now = now
        self.logger = logger
    }

    /// The provider's endpoints; for OpenID Connect, its discovery document must name the issuer
    /// exactly as configured (OpenID Connect Discovery §4.3), or nothing of it is used.
    func endpoints(for provider: IdentityProvider) async throws -> ProviderEndpoints {
        if provider.kind == .oauth2, let authorization = provider.authorizationEndpoint, let token = provider.tokenEndpoint {
            return ProviderEndpoints(authorization: authorization, token: token, userInfo: provider.userInfoEndpoint, jwks: nil,
                                     sendsIssuerInResponse: false)
        }
        let key = provider.issuer
        if let (cached, fetchedAt) = endpoints[key], now().timeIntervalSince(fetchedAt) < Self.discoveryLifetime {
            return Self.overriding(cached, with: provider)
        }
        let url = provider.issuer.hasSuffix("/") ? provider.issuer + ".well-known/openid-configuration"
            : provider.issuer + "/.well-known/openid-configuration"
        let document = try await ProviderHTTP.getJSON(url)
        guard document["issuer"]?.stringValue == provider.issuer else {
            throw ProviderHTTP.Failure(description: "\(url) names the issuer \(document["issuer"]?.stringValue ?? "(none)"), not \(provider.issuer)")
        }
        guard let authorization = document["authorization_endpoint"]?.stringValue, let token = document["token_endpoint"]?.stringValue,
              let jwks = document["jwks_uri"]?.stringValue else {
            throw ProviderHTTP.Failure(description: "\(url) lacks authorization_endpoint, token_endpoint or jwks_uri")
        }
        let found = ProviderEndpoints(authorization: authorization, token: token, userInfo: document["userinfo_endpoint"]?.stringValue,
                                      jwks: jwks, sendsIssuerInResponse: document["authorization_response_iss_parameter_supported"] == .bool(true))
        endpoints[key] = (found, now())
        return Self.overriding(found, with: provider)
    }

    private static func overriding(_ found: ProviderEndpoints, with provider: IdentityProvider) -> ProviderEndpoints {
        var result = found
        if let authorization = provider.authorizationEndpoint { result.authorization = authorization }
        if let token = provider.tokenEndpoint { result.token = token }
        if let userInfo = provider.userInfoEndpoint { result.userInfo = userInfo }
        return result
    }

    /// The provider's keys, fetched again when `kid` is not among them and the last fetch is a
    /// minute old.
    package func keys(for provider: IdentityProvider, kid: String?) async throws -> JWTKeyCollection {
        let cached = keySets[provider.issuer]
        if let cached, kid.map(cached.kids.contains) ?? true || now().timeIntervalSince(cached.fetchedAt) < Self.keyRefreshInterval {
            return cached.keys
        }
        guard let url = try await endpoints(for: provider).jwks else {
            throw ProviderHTTP.Failure(description: "\(provider.name) publishes no keys (jwks_uri)")
        }
        let document = try await ProviderHTTP.getJSON(url)
        let keys = JWTKeyCollection()
        do {
            try await keys.add(jwksJSON: JSONValue.object(document).jsonString)
        } catch {
            throw ProviderHTTP.Failure(description: "\(url) holds no usable RSA or EC key")
        }
        var kids: Set<String> = []
        if case .array(let entries)? = document["keys"] {
            for case .object(let entry) in entries { if let id = entry["kid"]?.stringValue { kids.insert(id) } }
        }
        if cached != nil { logger.info("Fetched an identity provider's keys again", metadata: ["provider": "\(provider.name)"]) }
        keySets[provider.issuer] = KeySet(kids: kids, keys: keys, fetchedAt: now())
        return keys
    }
}
