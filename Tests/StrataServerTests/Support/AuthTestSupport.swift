import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import NIOCore
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// A clock the tests move by hand, for token expiry and throttling windows.
final class TestClock: Sendable {
    private let current = NIOLockedValueBox(Date(timeIntervalSince1970: 1_750_000_000))

    var now: Date { current.withLockedValue { $0 } }

    func advance(_ seconds: TimeInterval) {
        current.withLockedValue { $0 = $0.addingTimeInterval(seconds) }
    }
}

/// The accounts every authentication test starts with; each password is `pw-` + the name.
enum TestAccounts {
    static let reader = "reader"
    static let editor = "writer"
    static let admin = "root"
    /// Signed in, but holding no role.
    static let nobody = "nobody"
    /// A reader of hockey only.
    static let hockeyReader = "hockeyfan"
    /// The administrator of the test templates, whom `withServer` signs every request in as.
    static let tester = "tester"
    static let testerPassword = "tester-password"

    static func password(_ name: String) -> String { "pw-\(name)" }

    static func create(_ admin: Administration) async throws {
        try await admin.addUser(reader, password: password(reader), roles: [RoleAssignment(role: "reader")])
        try await admin.addUser(editor, password: password(editor), roles: [RoleAssignment(role: "editor")])
        try await admin.addUser(Self.admin, password: password(Self.admin), roles: [RoleAssignment(role: "admin")])
        try await admin.addUser(nobody, password: password(nobody), roles: [])
        try await admin.addUser(hockeyReader, password: password(hockeyReader), roles: [RoleAssignment(role: "reader", service: "hockey")])
    }
}

/// Runs a test against a server with the demo data, its access rules and the test accounts, with
/// fast password hashing and a hand-moved clock. `setup` runs on the system database first, as
/// `strata user …` would before the server starts.
func withAuthServer<T: Sendable>(
    _ backend: Backend,
    clock: TestClock = TestClock(),
    configure: @Sendable (inout StrataConfiguration) -> Void = { _ in },
    setup: @Sendable (Administration) async throws -> Void = { _ in },
    _ test: @Sendable (any TestClientProtocol) async throws -> T
) async throws -> T {
    try await withAuthServer(backend, clock: clock, services: [], configure: configure, setup: setup) { client, _ in try await test(client) }
}

/// ``withAuthServer(_:clock:configure:setup:_:)`` that also hands the test its configuration, so
/// that it can administer the same data while the server runs, as the CLI would; `testing: .live`
/// puts the server on a real socket (the client's `port`), for browsers and other processes.
func withAuthServer<T: Sendable>(
    _ backend: Backend,
    clock: TestClock = TestClock(),
    services: [TestService] = [],
    logger: Logger = TestDatabases.logger,
    testing: TestingSetup = .router,
    configure: @Sendable (inout StrataConfiguration) -> Void = { _ in },
    setup: @Sendable (Administration) async throws -> Void = { _ in },
    _ test: @Sendable (any TestClientProtocol, StrataConfiguration) async throws -> T
) async throws -> T {
    try await PostgresSlots.run(backend) {
        var configuration = try await TestDatabases.shared.configuration(backend)
        for service in services {
            try await TestDatabases.shared.provision(service.name, backend, into: configuration, scripts: service.scripts(backend))
        }
        configuration.auth.passwordHashCost = 4
        configuration.auth.now = { clock.now }
        configure(&configuration)
        let prepared = configuration
        defer { try? FileManager.default.removeItem(atPath: prepared.dataDirectory) }
        try await Administration.with(prepared, logger: TestDatabases.logger) { admin in
            try await TestAccounts.create(admin)
            try await setup(admin)
        }
        let app = try await buildApplication(prepared, logger: logger)
        return try await app.test(testing) { client in
            try await test(client, prepared)
        }
    }
}

/// `Authorization: Basic …` for a test account (its password unless another is given).
func basic(_ user: String, _ password: String? = nil) -> HTTPFields {
    let text = "\(user):\(password ?? TestAccounts.password(user))"
    return [.authorization: "Basic " + Data(text.utf8).base64EncodedString()]
}

func bearer(_ token: String) -> HTTPFields {
    [.authorization: "Bearer \(token)"]
}

extension TestClientProtocol {
    /// `POST /auth/token` with a JSON body.
    func tokenRequest(json: String) async throws -> TestResponse {
        try await send(.post, "/auth/token", headers: [.contentType: "application/json"], body: json)
    }

    /// `POST /auth/token` with a form body.
    func tokenRequest(form: [(String, String)]) async throws -> TestResponse {
        let body = form.map { PercentEncoding.encodeQueryValue($0.0) + "=" + PercentEncoding.encodeQueryValue($0.1) }.joined(separator: "&")
        return try await send(.post, "/auth/token", headers: [.contentType: "application/x-www-form-urlencoded"], body: body)
    }

    /// Signs a test account in and answers its access and refresh tokens.
    func signIn(_ user: String, _ password: String? = nil) async throws -> (access: String, refresh: String) {
        let response = try await tokenRequest(json: #"{"username":"\#(user)","password":"\#(password ?? TestAccounts.password(user))"}"#)
        #expect(response.status == .ok, "sign-in of \(user): \(response.text)")
        let json = response.json
        return (json["access_token"]?.stringValue ?? "", json["refresh_token"]?.stringValue ?? "")
    }
}

/// A test client that sends the template's administrator credentials with every request that has
/// no `Authorization` of its own, so that feature tests (reads, writes, `$batch`) do not depend on
/// the access rules; the `Auth` suites test those with the plain client of ``withAuthServer``.
struct AdministratorTestClient: TestClientProtocol {
    let base: any TestClientProtocol

    static let authorization = "Basic " + Data("\(TestAccounts.tester):\(TestAccounts.testerPassword)".utf8).base64EncodedString()

    func executeRequest(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> TestResponse {
        var headers = headers
        if headers[.authorization] == nil { headers[.authorization] = Self.authorization }
        return try await base.executeRequest(uri: uri, method: method, headers: headers, body: body)
    }

    var port: Int? { base.port }
}
