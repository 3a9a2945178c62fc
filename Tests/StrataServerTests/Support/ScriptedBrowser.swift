import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// A browser played by the hosted sign-in tests: it follows redirects by hand, keeps cookies per
/// host and port, and fills in the test provider's login form (Fixtures/oidc: Django's login page,
/// whose CSRF token is the `csrftoken` cookie's value). It stops at the first redirect to the
/// app's redirect URI and hands it back, as an app's web authentication session does.
actor ScriptedBrowser {
    private let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
    private var cookies: [String: [String: String]] = [:]
    let username: String
    let password: String
    /// Every URL visited, in order (for tests that look at what the provider was sent).
    private(set) var visited: [String] = []

    init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// What a page answered.
    struct Page: Sendable {
        var status: Int
        var location: String?
        var body: String
    }

    func shutdown() async {
        try? await client.shutdown()
    }

    /// Opens `url` and follows the sign-in until a redirect to something starting with
    /// `redirectURI`; answers that redirect. `intercept` may answer a redirect's target in place of
    /// the browser (a test that rewrites what the provider sent to Strata's callback).
    func signIn(starting url: String, until redirectURI: String,
                intercept: @Sendable (String) -> String? = { _ in nil }) async throws -> String {
        var next = url
        var method = "GET"
        var form: String?
        for _ in 0..<20 {
            let page = try await open(next, method: method, form: form)
            method = "GET"
            form = nil
            if let location = page.location, (300..<400).contains(page.status) {
                let absolute = URL(string: location, relativeTo: URL(string: next))!.absoluteString
                if absolute.hasPrefix(redirectURI) { return absolute }
                next = intercept(absolute) ?? absolute
                continue
            }
            guard page.status == 200, page.body.contains("name=\"password\""), page.body.contains("csrfmiddlewaretoken") else {
                throw Failure(description: "\(next) answered \(page.status): \(page.body.prefix(600))")
            }
            // The login form posts back to its own URL, `?next=` included.
            let token = cookies[Self.origin(of: next)]?["csrftoken"] ?? ""
            form = "csrfmiddlewaretoken=\(Self.encode(token))&username=\(Self.encode(username))&password=\(Self.encode(password))"
            method = "POST"
        }
        throw Failure(description: "the sign-in did not reach \(redirectURI) within 20 steps: \(visited)")
    }

    /// One request with this browser's cookies; redirects are not followed.
    func open(_ url: String, method: String = "GET", form: String? = nil, headers: [(String, String)] = []) async throws -> Page {
        visited.append(url)
        var request = HTTPClientRequest(url: url)
        request.method = HTTPMethod(rawValue: method)
        request.headers.add(name: "Accept", value: "text/html,application/json")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let origin = Self.origin(of: url)
        if let jar = cookies[origin], !jar.isEmpty {
            request.headers.add(name: "Cookie", value: jar.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))
        }
        if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: form))
        }
        let response = try await client.execute(request, timeout: .seconds(30))
        for header in response.headers["Set-Cookie"] {
            let pair = header.split(separator: ";", maxSplits: 1).first ?? ""
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { continue }
            cookies[origin, default: [:]][String(parts[0]).trimmingCharacters(in: .whitespaces)] = String(parts[1])
        }
        let body = try await response.body.collect(upTo: 1 << 20)
        return Page(status: Int(response.status.code), location: response.headers.first(name: "Location"),
                    body: String(buffer: body))
    }

    /// Forgets the provider's session, as a new private window would.
    func clearCookies() {
        cookies = [:]
    }

    static func origin(of url: String) -> String {
        let parsed = URL(string: url)
        return "\(parsed?.host ?? ""):\(parsed?.port ?? 80)"
    }

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? ""
    }

    /// The query fields of a URL.
    static func query(_ url: String) -> [String: String] {
        var fields: [String: String] = [:]
        for item in URLComponents(string: url)?.queryItems ?? [] { fields[item.name] = item.value ?? "" }
        return fields
    }
}
