import Foundation
import Hummingbird
import HummingbirdTesting
import HTTPTypes
import NIOCore
@testable import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// Runs a test against a Strata server on a fresh copy of the demo data, through Hummingbird's
/// in-process router client. Requests are signed in as the templates' administrator unless they
/// carry their own `Authorization` (``AdministratorTestClient``).
func withServer<T: Sendable>(
    _ backend: Backend,
    demo: Bool = true,
    pageSize: Int = 1000,
    services: [TestService] = [],
    configure: @Sendable (inout StrataConfiguration) -> Void = { _ in },
    _ test: @Sendable (any TestClientProtocol) async throws -> T
) async throws -> T {
    try await PostgresSlots.run(backend) {
        var configuration = try await TestDatabases.shared.configuration(backend, demo: demo, pageSize: pageSize)
        for service in services {
            try await TestDatabases.shared.provision(service.name, backend, into: configuration, scripts: service.scripts(backend))
        }
        configure(&configuration)
        let app = try await buildApplication(configuration, logger: TestDatabases.logger)
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        return try await app.test(.router) { client in
            try await test(AdministratorTestClient(base: client))
        }
    }
}

/// An extra service a test needs, written once per dialect.
struct TestService: Sendable {
    var name: String
    var scripts: @Sendable (Backend) -> [String]
}

extension TestResponse {
    /// The body parsed as JSON; records an issue and returns null when it is not JSON.
    var json: JSONValue {
        let bytes = Array(body.readableBytesView)
        do {
            return try JSONValue.parse(bytes)
        } catch {
            Issue.record("response is not JSON (\(error)): \(String(decoding: bytes, as: UTF8.self).prefix(300))")
            return .null
        }
    }

    var text: String { String(decoding: body.readableBytesView, as: UTF8.self) }

    /// The OData error body's code and message.
    var odataError: (code: String, message: String)? {
        guard let error = ODataError.decode(status: Int(status.code), body: Array(body.readableBytesView)) else { return nil }
        return (error.code, error.message)
    }
}

extension TestClientProtocol {
    func get(_ uri: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await execute(uri: uri, method: .get, headers: headers, body: nil)
    }

    func send(_ method: HTTPRequest.Method, _ uri: String, headers: HTTPFields = [:], body: String? = nil) async throws -> TestResponse {
        try await execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
    }
}

extension HTTPField.Name {
    static let maxDataServiceVersion = HTTPField.Name("MaxDataServiceVersion")!
    static let dataServiceVersion = HTTPField.Name("DataServiceVersion")!
}

/// `JSONValue` navigation for assertions: `json["d"]["results"][0]["firstName"]`.
extension Optional where Wrapped == JSONValue {
    subscript(key: String) -> JSONValue? { self?[key] }
    subscript(index: Int) -> JSONValue? {
        guard case .array(let items)? = self, index < items.count else { return nil }
        return items[index]
    }
}

extension JSONValue {
    subscript(index: Int) -> JSONValue? {
        guard case .array(let items) = self, index < items.count else { return nil }
        return items[index]
    }
}
