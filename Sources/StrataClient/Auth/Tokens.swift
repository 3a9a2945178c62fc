import Foundation
import StrataCore

/// The tokens a Strata server issues at sign-in: a short-lived access token sent with every
/// request and a refresh token that obtains the next one.
public struct Tokens: Sendable, Hashable, Codable {
    /// The access token (a JWT, for Strata), sent as `Authorization: Bearer …`.
    public var accessToken: String
    /// The scheme, `Bearer`.
    public var tokenType: String
    /// The single-use token that obtains new tokens; nil when the server issued none.
    public var refreshToken: String?
    /// When the access token stops working, from the server's `expires_in`; nil when unknown.
    public var expiresAt: Date?

    /// Tokens as a token response gives them, or as a store read them back.
    public init(accessToken: String, tokenType: String = "Bearer", refreshToken: String? = nil, expiresAt: Date? = nil) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
    }

    /// The `Authorization` header value.
    public var authorization: String { "\(tokenType) \(accessToken)" }

    /// Reads a token response, `{"access_token","token_type","expires_in","refresh_token"}`.
    ///
    /// A response without a refresh token keeps `previousRefreshToken`, as OAuth allows servers to
    /// leave an unchanged refresh token out.
    static func read(_ response: StrataResponse, now: Date, previousRefreshToken: String? = nil) throws(StrataError) -> Tokens {
        let json = try response.json()
        guard let access = json["access_token"]?.stringValue, !access.isEmpty else {
            throw ResponseReader.invalid(response, "The token response has no access_token")
        }
        let type = json["token_type"]?.stringValue ?? "Bearer"
        let expiresIn = json["expires_in"]?.doubleValue
        return Tokens(accessToken: access,
                      tokenType: type.lowercased() == "bearer" ? "Bearer" : type,
                      refreshToken: json["refresh_token"]?.stringValue ?? previousRefreshToken,
                      expiresAt: expiresIn.map { now.addingTimeInterval($0) })
    }
}
