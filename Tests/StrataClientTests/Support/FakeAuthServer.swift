import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import StrataClient

/// A stand-in for Strata's token service, for testing ``AuthSession`` before and beside the real
/// one: it issues, rotates and revokes tokens as issue 6 describes, counts refreshes, and guards
/// `/data` with the current access token.
///
/// Sign-in tokens last `signInLifetime` seconds and refreshed ones an hour, so a test can make
/// every request need a refresh at first and none after it.
actor FakeAuthState {
    var signInLifetime = 7200
    /// Delay before answering a refresh, so that concurrent callers overlap with it.
    var refreshDelay: Duration = .milliseconds(200)
    private(set) var refreshCount = 0
    private(set) var logoutCount = 0
    private(set) var dataRequests = 0
    private var generation = 0
    private var validAccess: Set<String> = []
    private var validRefresh: Set<String> = []

    func configure(signInLifetime: Int) { self.signInLifetime = signInLifetime }

    /// The server forgets every access token (as after a restart with a new key), keeping refresh tokens.
    func revokeAccessTokens() { validAccess.removeAll() }

    /// The server forgets every refresh token too.
    func revokeEverything() {
        validAccess.removeAll()
        validRefresh.removeAll()
    }

    func issue(lifetime: Int) -> (access: String, refresh: String, lifetime: Int) {
        generation += 1
        let access = "access-\(generation)", refresh = "refresh-\(generation)"
        validAccess.insert(access)
        validRefresh.insert(refresh)
        return (access, refresh, lifetime)
    }

    func refresh(_ token: String) -> (access: String, refresh: String, lifetime: Int)? {
        refreshCount += 1
        // Single use: the old refresh token stops working as the new one is issued.
        guard validRefresh.remove(token) != nil else { return nil }
        return issue(lifetime: 3600)
    }

    func isValid(access: String) -> Bool {
        dataRequests += 1
        return validAccess.contains(access)
    }

    func logout(refresh: String?) {
        logoutCount += 1
        if let refresh { validRefresh.remove(refresh) }
        validAccess.removeAll()
    }
}

/// Runs `body` against a fake token service on a loopback port.
func withFakeAuthServer<T: Sendable>(_ body: @Sendable (URL, FakeAuthState) async throws -> T) async throws -> T {
    let state = FakeAuthState()
    let router = Router()
    router.post("/auth/token") { request, _ -> Hummingbird.Response in
        let bytes = try await request.body.collect(upTo: 1 << 16)
        let text = String(buffer: bytes)
        let fields = formFields(text)
        if request.headers[.contentType]?.hasPrefix("application/json") == true {
            let json = try JSONValue.parse(Array(text.utf8))
            guard json["username"]?.stringValue == "editor", json["password"]?.stringValue == "right password" else {
                return odataError(403, "Forbidden", "The user name or password is wrong.")
            }
            return tokenResponse(await state.issue(lifetime: await state.signInLifetime))
        }
        switch fields["grant_type"] {
        case "refresh_token":
            try await Task.sleep(for: await state.refreshDelay)
            guard let issued = await state.refresh(fields["refresh_token"] ?? "") else {
                return odataError(400, "InvalidGrant", "The refresh token is not valid.")
            }
            return tokenResponse(issued)
        case "urn:ietf:params:oauth:grant-type:token-exchange":
            guard fields["subject_token"] == "external.jwt", fields["subject_token_type"] == "urn:ietf:params:oauth:token-type:jwt" else {
                return odataError(403, "Forbidden", "The external token is not trusted.")
            }
            return tokenResponse(await state.issue(lifetime: 7200))
        default:
            return odataError(400, "UnsupportedGrantType", "Unsupported grant_type.")
        }
    }
    router.post("/auth/logout") { request, _ -> Hummingbird.Response in
        let bytes = try await request.body.collect(upTo: 1 << 16)
        await state.logout(refresh: formFields(String(buffer: bytes))["refresh_token"])
        return Hummingbird.Response(status: .noContent)
    }
    router.get("/svc/data") { request, _ -> Hummingbird.Response in
        let presented = request.headers[.authorization]?.replacingOccurrences(of: "Bearer ", with: "") ?? ""
        guard await state.isValid(access: presented) else {
            var response = odataError(401, "Unauthorized", "The access token is missing, expired or invalid.")
            response.headers[.wwwAuthenticate] = "Bearer error=\"invalid_token\""
            return response
        }
        return Hummingbird.Response(status: .ok, headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"d":{"__metadata":{"uri":"x"},"token":"\#(presented)"}}"#)))
    }
    return try await withRouter(router) { url in try await body(url, state) }
}

/// Serves `router` on a loopback port for the duration of `body`.
func withRouter<T: Sendable>(_ router: Router<BasicRequestContext>, _ body: @Sendable (URL) async throws -> T) async throws -> T {
    let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    return try await app.test(.live) { client in
        try await body(URL(string: "http://localhost:\(client.port!)/")!)
    }
}

private func formFields(_ text: String) -> [String: String] {
    var fields: [String: String] = [:]
    for pair in text.split(separator: "&") {
        let parts = pair.split(separator: "=", maxSplits: 1).map { PercentEncoding.decode($0, plusAsSpace: true) ?? "" }
        if parts.count == 2 { fields[parts[0]] = parts[1] }
    }
    return fields
}

private func tokenResponse(_ issued: (access: String, refresh: String, lifetime: Int)) -> Hummingbird.Response {
    let json = #"{"access_token":"\#(issued.access)","token_type":"Bearer","expires_in":\#(issued.lifetime),"refresh_token":"\#(issued.refresh)"}"#
    return Hummingbird.Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: json)))
}

private func odataError(_ status: Int, _ code: String, _ message: String) -> Hummingbird.Response {
    Hummingbird.Response(status: .init(code: status), headers: [.contentType: "application/json"],
             body: ResponseBody(byteBuffer: ByteBuffer(bytes: ODataError(status: status, code: code, message: message).jsonBody)))
}
