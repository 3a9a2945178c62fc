import Foundation
import Hummingbird
import HummingbirdTesting
import JWTKit
import NIOConcurrencyHelpers
@testable import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed

/// An OpenID Connect provider that misbehaves as a test tells it to: ID tokens for another
/// audience, with another nonce or issuer, signed by a key its JWKS lacks; answers naming another
/// issuer (RFC 9207). The real provider (``OIDCTestProvider``) proves the flow; this one proves
/// that each check of Strata's refuses what it should.
struct ScriptedProvider: Sendable {
    enum Fault: Sendable, Equatable {
        case none
        case audience
        case nonce
        case issuer
        case expired
        /// The ID token is signed by a key the JWKS does not list (until `publishSecondKey`).
        case unknownKey
        /// The authorization response names another issuer (`iss`, RFC 9207).
        case responseIssuer
        /// The discovery document promises `iss` in responses, and the response has none.
        case responseIssuerMissing
    }

    struct State: Sendable {
        var issuer = ""
        var fault = Fault.none
        var nonces: [String: String] = [:]
        var jwksFetches = 0
        var publishSecondKey = false
    }

    let state = NIOLockedValueBox(State())
    let keys: TestIdentityProvider
    let second: TestIdentityProvider
    static let clientID = "scripted-client"

    var jwksFetches: Int { state.withLockedValue { $0.jwksFetches } }

    static func make() async throws -> ScriptedProvider {
        ScriptedProvider(keys: try await .make(rsaKid: "rsa-1", ecKid: "ec-1"), second: try await .make(rsaKid: "rsa-2", ecKid: "ec-2"))
    }

    struct IDToken: JWTPayload {
        var iss: String
        var sub: String
        var aud: String
        var exp: Int64
        var iat: Int64
        var nonce: String
        var email: String
        var email_verified: Bool
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// Runs the provider on a loopback port for the duration of `body`, which gets its issuer URL.
    func run<T: Sendable>(_ body: @Sendable (String) async throws -> T) async throws -> T {
        let router = Router()
        router.get("/.well-known/openid-configuration") { _, _ -> Response in
            let current = state.withLockedValue { $0 }
            let promises = current.fault == .responseIssuer || current.fault == .responseIssuerMissing
            return Self.json("""
                {"issuer":"\(current.issuer)","authorization_endpoint":"\(current.issuer)/authorize","token_endpoint":"\(current.issuer)/token",\
                "jwks_uri":"\(current.issuer)/jwks","authorization_response_iss_parameter_supported":\(promises)}
                """)
        }
        router.get("/jwks") { _, _ -> Response in
            let publish = state.withLockedValue { state in
                state.jwksFetches += 1
                return state.publishSecondKey
            }
            guard publish else { return Self.json(keys.jwks) }
            let first = try JSONValue.parse(Array(keys.jwks.utf8))["keys"]?.arrayValue ?? []
            let added = try JSONValue.parse(Array(second.jwks.utf8))["keys"]?.arrayValue ?? []
            return Self.json(JSONValue.object(JSONObject([(key: "keys", value: .array(first + added))])).jsonString)
        }
        router.get("/authorize") { request, _ -> Response in
            let query = request.uri.queryParameters
            let code = UUID().uuidString
            let current = state.withLockedValue { state in
                state.nonces[code] = query["nonce"].map(String.init) ?? ""
                return state
            }
            var location = String(query["redirect_uri"] ?? "") + "?code=\(code)&state=\(query["state"] ?? "")"
            switch current.fault {
            case .responseIssuer: location += "&iss=" + PercentEncoding.encodeFormValue("https://attacker.example")
            case .responseIssuerMissing: break
            default: location += "&iss=" + PercentEncoding.encodeFormValue(current.issuer)
            }
            return Response(status: .found, headers: [.location: location])
        }
        router.post("/token") { request, _ -> Response in
            let body = String(buffer: try await request.body.collect(upTo: 65536))
            let code = body.split(separator: "&").first { $0.hasPrefix("code=") }.map { String($0.dropFirst(5)) } ?? ""
            let current = state.withLockedValue { $0 }
            let now = Int64(Date().timeIntervalSince1970)
            let token = IDToken(
                iss: current.fault == .issuer ? "https://other-issuer.example" : current.issuer, sub: "scripted-1",
                aud: current.fault == .audience ? "another-client" : Self.clientID, exp: current.fault == .expired ? now - 600 : now + 600,
                iat: now, nonce: current.fault == .nonce ? "another-nonce" : current.nonces[code] ?? "", email: "sam@example.com",
                email_verified: true)
            let signer = current.fault == .unknownKey ? second : keys
            let signed = try await signer.keys.sign(token, kid: JWKIdentifier(string: current.fault == .unknownKey ? "rsa-2" : "rsa-1"))
            return Self.json("{\"access_token\":\"provider-access\",\"token_type\":\"Bearer\",\"id_token\":\"\(signed)\"}")
        }
        let app = Application(router: router)
        return try await app.test(.live) { client in
            let issuer = "http://127.0.0.1:\(client.port!)"
            state.withLockedValue { $0.issuer = issuer }
            return try await body(issuer)
        }
    }

    private static func json(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
