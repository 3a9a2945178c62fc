import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import StrataClient
import StrataDemo
import StrataServer
import StrataStorage
import StrataIdentity
import StrataOData
import StrataBlobs
import StrataDataTables
import StrataFeed

/// A live demo server of its own with an administrator account, for the blob client tests.
struct BlobServer: Sendable {
    static let administrator = "blobadmin"
    static let password = "blob-admin-password"

    let rootURL: URL
    let dataDirectory: String

    /// A client signed in as the administrator (a real token from `/auth/token`).
    func signedInClient() async throws -> BlobClient {
        let session = AuthSession(serverURL: rootURL)
        try await session.signIn(username: Self.administrator, password: Self.password)
        return BlobClient(serverURL: rootURL, configuration: ConnectionConfiguration(authenticator: session))
    }

    /// A client without credentials.
    var anonymousClient: BlobClient { BlobClient(serverURL: rootURL) }
}

func withBlobServer<T: Sendable>(_ body: @Sendable (BlobServer) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-blobs-\(UUID().uuidString.prefix(12))").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var configuration = StrataConfiguration(port: 0, dataDirectory: directory, logLevel: .critical)
    configuration.demo = true
    configuration.auth.passwordHashCost = 4
    configuration.auth.announce = { _ in }
    var logger = Logger(label: "strata-client-test")
    logger.logLevel = .critical
    try await Administration.with(configuration, logger: logger) { admin in
        try await admin.addUser(BlobServer.administrator, password: BlobServer.password, roles: [RoleAssignment(role: "admin")])
    }
    let app = try await buildApplication(configuration, logger: logger)
    return try await app.test(.live) { client in
        try await body(BlobServer(rootURL: URL(string: "http://localhost:\(client.port!)/")!, dataDirectory: directory))
    }
}
