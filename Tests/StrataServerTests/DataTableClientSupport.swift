import Foundation
import HummingbirdTesting
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import StrataClient
import StrataCore
import Testing

/// A server on a real loopback socket, on a fresh copy of the demo data in `backend`, for the
/// data table client: the adapter speaks to it over URLSession like an app would, signed in as the
/// templates' administrator (as ``withServer`` signs its requests) so that writes are allowed.
///
/// `setup` administers the data before the server starts (accounts, grants); `account` names a test
/// account (``TestAccounts``, made by `setup`) to sign the connection's requests as instead.
func withLiveServer<T: Sendable>(
    _ backend: Backend,
    services: [TestService] = [],
    configure: @Sendable (inout StrataConfiguration) -> Void = { _ in },
    setup: (@Sendable (Administration) async throws -> Void)? = nil,
    account: String? = nil,
    _ test: @Sendable (_ connection: Connection) async throws -> T
) async throws -> T {
    try await PostgresSlots.run(backend) {
        var configuration = try await TestDatabases.shared.configuration(backend)
        configuration.port = 0
        for service in services {
            try await TestDatabases.shared.provision(service.name, backend, into: configuration, scripts: service.scripts(backend))
        }
        configure(&configuration)
        if let setup {
            configuration.auth.passwordHashCost = 4
            let prepared = configuration
            try await Administration.with(prepared, logger: TestDatabases.logger) { admin in
                try await TestAccounts.create(admin)
                try await setup(admin)
            }
        }
        let app = try await buildApplication(configuration, logger: TestDatabases.logger)
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        return try await app.test(.live) { client in
            let authorization = account.map { "Basic " + Data("\($0):\(TestAccounts.password($0))".utf8).base64EncodedString() }
                ?? AdministratorTestClient.authorization
            let headers: StrataHeaders = ["Accept": "application/json", "Authorization": authorization]
            let connection = Connection(baseURL: URL(string: "http://127.0.0.1:\(client.port!)/")!,
                                        configuration: ConnectionConfiguration(defaultHeaders: headers))
            return try await test(connection)
        }
    }
}

extension DataTable {
    /// The row whose field has this value.
    func row(where field: String, is value: ODataValue) -> DataTableRow? {
        storageRows.first { $0[field] == value }
    }

    var storageRows: [DataTableRow] { rows + rows(.deleted) }
}
