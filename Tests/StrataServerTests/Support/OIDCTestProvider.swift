import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// A real OpenID Connect provider for the hosted sign-in tests: django-oidc-provider in a
/// throwaway virtualenv (Fixtures/oidc, whose README tells its quirks), on a free loopback port.
///
/// The virtualenv is made once per machine by `Fixtures/oidc/install.sh` (`.ci/run` runs it; a test
/// run without it makes it first, which needs PyPI). Its location is `STRATA_OIDC_VENV`, else
/// `/tmp/strata-oidc-venv`.
struct OIDCTestProvider: Sendable {
    let pid: pid_t
    let port: Int
    let directory: String

    /// A user of the provider; its `sub` is its position in the configuration, from "1".
    struct User: Sendable {
        var username: String
        var password: String
        var email: String
        var firstName = "Test"
        var lastName = "User"
        var emailVerified = true
    }

    /// A client (an application registered at the provider).
    struct Client: Sendable {
        var id: String
        var secret: String
        var redirectURIs: [String]
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    var issuer: String { "http://127.0.0.1:\(port)/openid" }
    var base: String { "http://127.0.0.1:\(port)" }

    static let environment = FixtureVirtualenv(fixture: "oidc", environment: "STRATA_OIDC_VENV", default: "/tmp/strata-oidc-venv")
    static var fixture: String { environment.fixture }
    static var virtualenv: String { environment.path }

    /// Makes the virtualenv when it is missing; once per test process, however many tests start a
    /// provider at once (the hosted sign-in tests run on both databases in parallel).
    static func install() async throws {
        try await environment.install()
    }

    /// Starts a provider with these users and clients and waits until its discovery document answers.
    /// `idTokenLifetime` is seconds.
    static func start(users: [User], clients: [Client], idTokenLifetime: Int = 600) async throws -> OIDCTestProvider {
        try await install()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-oidc-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let configPath = directory + "/config.json"
        try configuration(users: users, clients: clients).write(to: URL(fileURLWithPath: configPath))
        let port = try freeLoopbackPort()

        let pid = try spawnLogged("/bin/sh", [fixture + "/run.sh", virtualenv, directory + "/data", String(port), configPath],
                                  log: directory + "/run.out", environment: ["OIDC_IDTOKEN_EXPIRE": String(idTokenLifetime)])
        let provider = OIDCTestProvider(pid: pid, port: port, directory: directory)
        let discovery = URL(string: provider.issuer + "/.well-known/openid-configuration")!
        switch try await awaitReady(child: pid, within: .seconds(60), every: .milliseconds(100), {
            guard let (_, response) = try? await URLSession.shared.data(from: discovery) else { return false }
            return (response as? HTTPURLResponse)?.statusCode == 200
        }) {
        case .ready:
            return provider
        case .exited:
            throw Failure(description: "the OpenID Connect provider exited at start: \(provider.log)")
        case .timedOut:
            provider.stop()
            throw Failure(description: "the OpenID Connect provider did not answer within 60 s: \(provider.log)")
        }
    }

    /// The provisioning file (Fixtures/oidc/README.md tells its form).
    private static func configuration(users: [User], clients: [Client]) throws -> Data {
        let config: [String: Any] = [
            "users": users.map { user in
                ["username": user.username, "password": user.password, "email": user.email, "first_name": user.firstName,
                 "last_name": user.lastName, "email_verified": user.emailVerified] as [String: Any]
            },
            "clients": clients.map { client in
                ["client_id": client.id, "client_secret": client.secret, "redirect_uris": client.redirectURIs, "name": client.id] as [String: Any]
            },
        ]
        return try JSONSerialization.data(withJSONObject: config)
    }

    /// Changes users and clients while the provider runs (it reads them per request): the tests
    /// learn Strata's port, and so its callback URL, only once it listens.
    func update(users: [User], clients: [Client]) async throws {
        let path = directory + "/update.json"
        try Self.configuration(users: users, clients: clients).write(to: URL(fileURLWithPath: path))
        let result = try await ChildProcess.run(Self.virtualenv + "/bin/python", [Self.fixture + "/provision.py", path], environment: [
            "OIDC_DATA_DIR": directory + "/data", "OIDC_SITE_URL": base, "DJANGO_SETTINGS_MODULE": "strata_oidc.settings",
            "PYTHONDONTWRITEBYTECODE": "1",
        ], directory: Self.fixture)
        guard result.status == 0 else { throw Failure(description: "provision.py failed: \(result.errors)\(result.output)") }
    }

    var log: String {
        ["run.out", "data/server.log"].map { (try? String(contentsOfFile: directory + "/" + $0, encoding: .utf8)) ?? "" }
            .joined(separator: "\n").suffix(4000).description
    }

    /// Stops the provider: SIGTERM, and SIGKILL if it has not exited within 5 s, so that a provider
    /// stuck in a request cannot hold the test (and the cooperative thread it is called on) forever.
    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<100 where waitpid(pid, &status, WNOHANG) == 0 { usleep(50_000) }
        if waitpid(pid, &status, WNOHANG) == 0 {
            kill(pid, SIGKILL)
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
