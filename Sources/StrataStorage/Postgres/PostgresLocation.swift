import Foundation

/// Connection settings for PostgreSQL, parsed from a `postgres://` URL.
///
/// As in libpq, a host that starts with `/` is the directory of the server's Unix-domain socket
/// (`<directory>/.s.PGSQL.<port>`): `postgres://user@/db?host=/var/run/postgresql`, for servers on
/// the same machine that listen only on their socket or admit local users by peer authentication.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String?
    /// `disable`, `prefer` or `require` as in libpq's `sslmode`; loopback hosts and sockets default to `disable`.
    public var sslMode: String

    public init(host: String, port: Int = 5432, username: String, password: String? = nil, database: String? = nil, sslMode: String? = nil) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        let local = Self.isSocketDirectory(host) || ["127.0.0.1", "localhost", "::1"].contains(host)
        self.sslMode = sslMode ?? (local ? "disable" : "prefer")
    }

    public init(url: String) throws {
        let example = "write postgres://user:password@host:5432/database, or postgres://user@/database?host=/socket/directory"
        guard let components = URLComponents(string: url) else {
            throw ConfigurationError("cannot read the PostgreSQL URL \(DatabaseLocation.redacted(url)); \(example)")
        }
        let parameters = components.queryItems ?? []
        func parameter(_ name: String) -> String? { parameters.first { $0.name == name }?.value }
        // libpq's `host` parameter overrides the URL's host; a percent-encoded `/…` host is a socket directory too.
        guard let host = parameter("host") ?? components.percentEncodedHost.map({ $0.removingPercentEncoding ?? $0 }),
              !host.isEmpty else {
            throw ConfigurationError("the PostgreSQL URL \(DatabaseLocation.redacted(url)) names no host; \(example)")
        }
        guard let user = components.user, !user.isEmpty else {
            throw ConfigurationError("the PostgreSQL URL \(DatabaseLocation.redacted(url)) names no user; \(example)")
        }
        var port = components.port ?? 5432
        if let text = parameter("port") {
            guard let value = Int(text), (1...65535).contains(value) else {
                throw ConfigurationError("port must be a number from 1 to 65535, not \(text)")
            }
            port = value
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        let sslMode = parameter("sslmode")
        if let sslMode, !["disable", "prefer", "require"].contains(sslMode) {
            throw ConfigurationError("sslmode must be disable, prefer or require, not \(sslMode)")
        }
        // `prefer` is met by a plain connection; `require` cannot be, as a socket has no TLS here.
        if Self.isSocketDirectory(host), sslMode == "require" {
            throw ConfigurationError("sslmode=require cannot apply to the Unix socket in \(host); a socket connection is not encrypted")
        }
        self.init(host: host, port: port, username: user.removingPercentEncoding ?? user,
                  password: components.password.map { $0.removingPercentEncoding ?? $0 },
                  database: database.isEmpty ? nil : database, sslMode: sslMode)
    }

    /// Whether a host names the directory of a Unix-domain socket rather than a machine (libpq's rule).
    static func isSocketDirectory(_ host: String) -> Bool {
        host.hasPrefix("/")
    }

    /// The path of the server's Unix-domain socket when ``host`` is a socket directory, else nil.
    public var socketPath: String? {
        guard Self.isSocketDirectory(host) else { return nil }
        return (host.hasSuffix("/") ? String(host.dropLast()) : host) + "/.s.PGSQL.\(port)"
    }

    /// Never prints the password.
    public var description: String {
        if Self.isSocketDirectory(host) {
            return "postgres://\(username)@/\(database ?? "")?host=\(host)" + (port == 5432 ? "" : "&port=\(port)")
        }
        return "postgres://\(username)@\(host):\(port)/\(database ?? "")"
    }
}
