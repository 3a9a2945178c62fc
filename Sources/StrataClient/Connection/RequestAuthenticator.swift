/// Supplies credentials for a ``Connection``'s requests; ``AuthSession`` is the one Strata ships.
///
/// The connection asks for the `Authorization` value before each request that has
/// ``StrataRequest/isAuthenticated`` set. When the server answers 401 it calls
/// ``refreshAfterRejection(of:)`` once and, if that returns true, sends the request again with a
/// fresh value; a second 401 is returned to the caller.
public protocol RequestAuthenticator: Sendable {
    /// The `Authorization` header value to send (`Bearer …`), or nil to send none.
    func authorization() async throws(StrataError) -> String?

    /// The server refused `authorization` with 401. Return true after obtaining new credentials so
    /// the request is retried, false to hand the 401 to the caller.
    func refreshAfterRejection(of authorization: String?) async throws(StrataError) -> Bool
}
