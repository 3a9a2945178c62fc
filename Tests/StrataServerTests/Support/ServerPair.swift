import Foundation
import Hummingbird
import HummingbirdTesting
@testable import StrataServer

/// Two Strata servers on one PostgreSQL database, as two machines behind a load balancer would run
/// them: the same `--database` (and so the same system schema), each with a data directory of its own.
/// (SQLite services are files in the data directory, which only one machine has.)
/// Both are the in-process router servers of ``withServer(_:demo:pageSize:services:configure:_:)``,
/// signed in as the templates' administrator.
func withServerPair<T: Sendable>(
    services: [TestService] = [],
    configure: @Sendable (inout StrataConfiguration) -> Void = { _ in },
    configureSecond: @Sendable (inout StrataConfiguration) -> Void = { _ in },
    _ test: @Sendable (_ first: any TestClientProtocol, _ second: any TestClientProtocol) async throws -> T
) async throws -> T {
    try await PostgresSlots.run(.postgres) {
        var first = try await TestDatabases.shared.configuration(.postgres)
        for service in services {
            try await TestDatabases.shared.provision(service.name, .postgres, into: first, scripts: service.scripts(.postgres))
        }
        var second = first
        second.dataDirectory = first.dataDirectory + "-second"
        try FileManager.default.createDirectory(atPath: second.dataDirectory, withIntermediateDirectories: true)
        configure(&first)
        configureSecond(&second)
        defer {
            try? FileManager.default.removeItem(atPath: first.dataDirectory)
            try? FileManager.default.removeItem(atPath: second.dataDirectory)
        }
        let (firstSettings, secondSettings) = (first, second)
        let firstApp = try await buildApplication(firstSettings, logger: TestDatabases.logger)
        return try await firstApp.test(.router) { firstClient in
            let secondApp = try await buildApplication(secondSettings, logger: TestDatabases.logger)
            return try await secondApp.test(.router) { secondClient in
                try await test(AdministratorTestClient(base: firstClient), AdministratorTestClient(base: secondClient))
            }
        }
    }
}
