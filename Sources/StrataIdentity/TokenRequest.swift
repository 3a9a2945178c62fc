import Foundation
import StrataCore

/// A request to `POST /auth/token`, from a JSON or an `application/x-www-form-urlencoded` body.
///
/// JSON `{"username","password"}` is the hockey sample's login; the form follows OAuth 2.0
/// (`grant_type=password`, `refresh_token`, and RFC 8693 token exchange). A JSON body may name a
/// `grant_type` too, with the same field names as the form.
package enum TokenRequest: Sendable {
    case password(username: String, password: String)
    case refresh(token: String)
    case exchange(subjectToken: String)
    /// A one-time code from hosted sign-in, with the app's PKCE verifier and redirect URI.
    case authorizationCode(code: String, verifier: String, redirectURI: String)

    static let exchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange"
    /// Token types an exchanged token may be declared as; all are JWTs from a trusted issuer.
    static let subjectTokenTypes: Set<String> = [
        "urn:ietf:params:oauth:token-type:jwt", "urn:ietf:params:oauth:token-type:id_token",
        "urn:ietf:params:oauth:token-type:access_token",
    ]

    /// Bodies larger than this are refused; a token request is a few hundred bytes (an external token a few KiB).
    package static let maximumBodySize = 64 * 1024

    package static func parse(body: [UInt8], contentType: String?) throws(ODataError) -> TokenRequest {
        try request(from: fields(body: body, contentType: contentType))
    }

    /// The fields of a JSON or form body, by name.
    package static func fields(body: [UInt8], contentType: String?) throws(ODataError) -> [String: String] {
        let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        let fields: [String: String]
        switch mediaType {
        case "application/json":
            fields = try jsonFields(body)
        case "application/x-www-form-urlencoded":
            fields = try formFields(String(decoding: body, as: UTF8.self), of: "The token request")
        default:
            throw .unsupportedMediaType("Send the token request as application/json or application/x-www-form-urlencoded.")
        }
        return fields
    }

    private static func request(from fields: [String: String]) throws(ODataError) -> TokenRequest {
        func required(_ name: String) throws(ODataError) -> String {
            guard let value = fields[name], !value.isEmpty else { throw .badRequest("The token request has no \(name).") }
            return value
        }
        switch fields["grant_type"] {
        case nil, "password":
            return .password(username: try required("username"), password: try required("password"))
        case "refresh_token":
            return .refresh(token: try required("refresh_token"))
        case "authorization_code":
            return .authorizationCode(code: try required("code"), verifier: try required("code_verifier"),
                                      redirectURI: try required("redirect_uri"))
        case exchangeGrant:
            let token = try required("subject_token")
            if let type = fields["subject_token_type"], !subjectTokenTypes.contains(type) {
                throw .badRequest("subject_token_type \(type) is not supported; send a JWT (urn:ietf:params:oauth:token-type:jwt).")
            }
            return .exchange(subjectToken: token)
        case let other?:
            throw .badRequest("grant_type \(other) is not supported; use password, refresh_token, authorization_code or \(exchangeGrant).", code: "UnsupportedGrantType")
        }
    }

    private static func jsonFields(_ body: [UInt8]) throws(ODataError) -> [String: String] {
        let parsed: JSONValue
        do {
            parsed = try JSONValue.parse(body, maximumDepth: 8)
        } catch {
            throw .badRequest("The token request is not valid JSON: \(error)")
        }
        guard case .object(let object) = parsed else {
            throw .badRequest("The token request is not a JSON object.")
        }
        var fields: [String: String] = [:]
        for (key, value) in object {
            guard let text = value.stringValue else { throw .badRequest("The token request field \(key) must be a string.") }
            fields[key] = text
        }
        return fields
    }

    /// The fields of `name=value&…` text (a form body, a query string); a field given twice is
    /// refused (OAuth 2.0 §3.1: parameters are sent once). `subject` names the text in errors.
    package static func formFields(_ text: String, of subject: String) throws(ODataError) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = PercentEncoding.decode(parts[0], plusAsSpace: true),
                  let value = PercentEncoding.decode(parts.count > 1 ? parts[1] : "", plusAsSpace: true) else {
                throw .badRequest("\(subject) is not correctly percent-encoded.")
            }
            guard fields[name] == nil else { throw .badRequest("\(subject) gives \(name) twice.") }
            fields[name] = value
        }
        return fields
    }
}
