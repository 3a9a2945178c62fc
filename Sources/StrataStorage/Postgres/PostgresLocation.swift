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
    /// The hosts to try after ``host``, in order, as libpq's multi-host URLs name them
    /// (`postgres://h1:5432,h2:5432/db?target_session_attrs=read-write`). With more than one host
    /// the server connects to the one that accepts writes (`pg_is_in_recovery()` is false), and
    /// looks for it again when it is lost: after a standby's promotion it finds the new primary.
    public var otherHosts: [Host] = []

    /// One host of a multi-host location.
    public struct Host: Sendable, Equatable {
        public var host: String
        public var port: Int
    }

    /// Whether several hosts are named, so that the writable one must be looked for.
    public var hasSeveralHosts: Bool { !otherHosts.isEmpty }

    /// Each host as a location of its own, in the order to try them.
    public var candidates: [PostgresLocation] {
        var first = self
        first.otherHosts = []
        return [first] + otherHosts.map { other in
            var location = first
            location.host = other.host
            location.port = other.port
            return location
        }
    }

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
        let (single, others) = try Self.splitHosts(url)
        try self.init(singleHostURL: single)
        guard !others.isEmpty else { return }
        if Self.isSocketDirectory(host) {
            throw ConfigurationError("several hosts in \(DatabaseLocation.redacted(url)) must all be host:port, not a socket directory")
        }
        otherHosts = others
    }

    /// libpq's multi-host form: the URL with only its first host, and the others (`h1:5432,h2,h3:5433`).
    private static func splitHosts(_ url: String) throws -> (String, [Host]) {
        guard let schemeEnd = url.range(of: "://") else { return (url, []) }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let hostsStart = authority.lastIndex(of: "@").map { authority.index(after: $0) } ?? authority.startIndex
        let hostList = authority[hostsStart...]
        guard hostList.contains(",") else { return (url, []) }
        var hosts: [Host] = []
        for entry in hostList.split(separator: ",", omittingEmptySubsequences: false) {
            guard !entry.isEmpty else { throw ConfigurationError("an empty host in \(DatabaseLocation.redacted(url))") }
            // `[::1]` has colons of its own; a port follows the bracket.
            guard let colon = entry.lastIndex(of: ":"), !entry.hasSuffix("]") else {
                hosts.append(Host(host: String(entry), port: 5432))
                continue
            }
            let name = entry[..<colon]
            guard let port = Int(entry[entry.index(after: colon)...]), (1...65535).contains(port), !name.isEmpty else {
                throw ConfigurationError("each host of \(DatabaseLocation.redacted(url)) must be host or host:port with a port from 1 to 65535")
            }
            hosts.append(Host(host: String(name), port: port))
        }
        let first = hosts[0]
        let single = String(url[..<schemeEnd.upperBound]) + String(rest[..<hostsStart]) + first.host + ":\(first.port)"
            + String(rest[authorityEnd...])
        // libpq's default, `any`, would take a standby; the server must write, so only these are accepted.
        if let attributes = URLComponents(string: single)?.queryItems?.first(where: { $0.name == "target_session_attrs" })?.value,
           !["read-write", "primary"].contains(attributes) {
            throw ConfigurationError("target_session_attrs must be read-write or primary (the server writes), not \(attributes)")
        }
        let others = hosts.dropFirst().map { other in
            Host(host: other.host.hasPrefix("[") && other.host.hasSuffix("]") ? String(other.host.dropFirst().dropLast()) : other.host,
                 port: other.port)
        }
        return (single, others)
    }

    private init(singleHostURL url: String) throws {
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
        let hosts = ([Host(host: host, port: port)] + otherHosts).map { "\($0.host):\($0.port)" }.joined(separator: ",")
        return "postgres://\(username)@\(hosts)/\(database ?? "")" + (otherHosts.isEmpty ? "" : "?target_session_attrs=read-write")
    }
}
