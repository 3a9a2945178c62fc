import Foundation
import HTTPTypes
import HummingbirdTesting
import PostgresNIO
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Synchronization
import Testing

/// `--database postgres://…`: TCP hosts, and Unix-domain sockets named as libpq names them.
@Suite("PostgreSQL locations")
struct PostgresLocationTests {
    @Test("A TCP URL gives host, port, user, password and database; loopback needs no TLS")
    func tcp() throws {
        let location = try PostgresLocation(url: "postgres://ann:s%40cret@db.example.com:6543/sales?sslmode=require")
        #expect(location.host == "db.example.com" && location.port == 6543)
        #expect(location.username == "ann" && location.password == "s@cret" && location.database == "sales")
        #expect(location.sslMode == "require" && location.socketPath == nil)
        #expect(location.description == "postgres://ann@db.example.com:6543/sales")
        #expect(try PostgresLocation(url: "postgresql://ann@localhost/sales").sslMode == "disable")
        #expect(try PostgresLocation(url: "postgres://ann@db.example.com/sales").sslMode == "prefer")
    }

    @Test("A host that is a directory names the server's socket in it, from the host parameter or the URL's host")
    func socket() throws {
        let location = try PostgresLocation(url: "postgres://ann@/sales?host=/var/run/postgresql")
        #expect(location.host == "/var/run/postgresql" && location.port == 5432 && location.database == "sales")
        #expect(location.socketPath == "/var/run/postgresql/.s.PGSQL.5432")
        #expect(location.sslMode == "disable")
        #expect(location.description == "postgres://ann@/sales?host=/var/run/postgresql")

        let encoded = try PostgresLocation(url: "postgres://ann@%2Ftmp%2Fpg/sales?port=5433")
        #expect(encoded.socketPath == "/tmp/pg/.s.PGSQL.5433")
        #expect(encoded.description == "postgres://ann@/sales?host=/tmp/pg&port=5433")
        #expect(try PostgresLocation(url: encoded.description) == encoded)
        // `prefer` is met without TLS; only `require` is refused below.
        #expect(try PostgresLocation(url: "postgres://ann@/sales?host=/tmp&sslmode=prefer").socketPath == "/tmp/.s.PGSQL.5432")
        // The parameter wins over the URL's host, as in libpq.
        #expect(try PostgresLocation(url: "postgres://ann@db.example.com/sales?host=/tmp/").socketPath == "/tmp/.s.PGSQL.5432")
    }

    @Test("Unusable URLs are refused with what to write instead", arguments: [
        ("postgres:///sales", "names no host"),
        ("postgres://db.example.com/sales", "names no user"),
        ("postgres://ann@/sales?host=/tmp&sslmode=require", "a socket connection is not encrypted"),
        ("postgres://ann@/sales?host=/tmp&port=99999", "port must be a number from 1 to 65535"),
        ("postgres://ann@db.example.com/sales?sslmode=maybe", "sslmode must be disable, prefer or require"),
    ])
    func refused(_ url: String, _ message: String) {
        #expect {
            try PostgresLocation(url: url)
        } throws: { error in
            String(describing: error).contains(message)
        }
    }

    @Test("A server configured with the socket directory reaches PostgreSQL through the socket")
    func serverOverSocket() async throws {
        let endpoint = try await PostgresTestCluster.shared.start()
        let socketDirectory = try #require(endpoint.socketDirectory)
        let database = Mutex<String?>(nil)
        try await withServer(.postgres, configure: { configuration in
            guard case .postgres(var location) = configuration.database else { return }
            database.withLock { $0 = location.database }
            location.host = socketDirectory
            configuration.database = .postgres(location)
        }) { client in
            let response = try await client.get("/cardealer/Person(1)")
            #expect(response.status == .ok)
            #expect(response.json["d"]["firstName"]?.stringValue == "Bob")
            // The server's pool is open; its sessions have no client address, as socket sessions have none.
            let name = try #require(database.withLock { $0 })
            let sessions = try await TestDatabases.withAdminClient(endpoint, database: "postgres") { admin in
                let rows = try await admin.query(
                    "SELECT count(*) FILTER (WHERE client_addr IS NULL), count(*) FROM pg_stat_activity WHERE datname = \(name) AND backend_type = 'client backend'")
                var counts: [(Int, Int)] = []
                for try await row in rows { counts.append(try row.decode((Int, Int).self)) }
                return counts.first
            }
            let (overSocket, all) = try #require(sessions)
            #expect(overSocket >= 1 && overSocket == all, "sessions of the server: \(all), over the socket: \(overSocket)")
        }
    }
}
