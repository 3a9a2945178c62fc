import Foundation
import StrataCore

/// A compact JWS split into its header and payload, decoded without checking the signature.
///
/// Used only to decide how to verify a token (which issuer, which algorithm); nothing read here is
/// trusted until the signature over these same bytes has been checked.
struct UnverifiedToken: Sendable {
    var header: JSONObject
    var payload: JSONObject

    /// Tokens larger than this are refused before any decoding (headers are bounded anyway; this
    /// keeps a hostile token from costing more than a small parse).
    static let maximumLength = 16 * 1024

    init(_ token: String) throws(ODataError) {
        guard token.utf8.count <= Self.maximumLength else { throw AuthErrors.invalidToken("The token is too long.") }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let header = Self.decodeObject(parts[0]), let payload = Self.decodeObject(parts[1]) else {
            throw AuthErrors.invalidToken("The token is not a signed JWT.")
        }
        self.header = header
        self.payload = payload
    }

    var algorithm: String? { header["alg"]?.stringValue }
    var keyID: String? { header["kid"]?.stringValue }
    var issuer: String? { payload["iss"]?.stringValue }

    static func base64URLDecode(_ text: some StringProtocol) -> Data? {
        Base64URL.decode(text).map { Data($0) }
    }

    private static func decodeObject(_ part: some StringProtocol) -> JSONObject? {
        guard let data = base64URLDecode(part), case .object(let object)? = try? JSONValue.parse(Array(data), maximumDepth: 32) else {
            return nil
        }
        return object
    }
}

/// The errors authentication answers with.
package enum AuthErrors {
    /// 401: credentials missing where needed, or not valid. The authentication middleware adds
    /// `WWW-Authenticate: Bearer error="invalid_token"` to every 401.
    static func invalidToken(_ message: String) -> ODataError {
        ODataError(status: 401, code: "InvalidToken", message: message)
    }

    package static func unauthenticated(_ message: String) -> ODataError {
        ODataError(status: 401, code: "Unauthorized", message: message)
    }

    /// 403 at the token endpoint: the same answer for an unknown account and a wrong password.
    static let refusedLogin = ODataError(status: 403, code: "Forbidden", message: "The user name or password is not correct.")

    static func refusedGrant(_ message: String) -> ODataError {
        ODataError(status: 403, code: "InvalidGrant", message: message)
    }

    package static func forbidden(_ message: String) -> ODataError {
        ODataError(status: 403, code: "Forbidden", message: message)
    }
}

/// Login attempts refused because of too many failures, or sign-ins refused because one address
/// started too many; answered 429 with `Retry-After`.
package struct ThrottledError: Error, Sendable {
    /// Whole seconds until a login may be tried again (at least 1).
    package var retryAfter: Int
    /// What was too many, the start of the message.
    var reason = "Too many failed logins"

    package var odataError: ODataError {
        ODataError(status: 429, code: "TooManyRequests",
                   message: "\(reason); try again in \(retryAfter) seconds.")
    }
}
