import Foundation

/// Which server a client command talks to when it names none: `--server`, then `$STRATA_SERVER`,
/// then the server a replica was made against (`strata sync`), then the server last signed in to
/// with `strata login`, and only then `http://127.0.0.1:8080`.
enum DefaultServer {
    static let local = "http://127.0.0.1:8080"
    static let help = "(env: STRATA_SERVER, default: the server last signed in to, else \(local))"

    /// The server's text, by the order above. `remembered` is the replica's.
    static func text(option: String?, remembered: String? = nil,
                     environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        option ?? environment["STRATA_SERVER"].flatMap { $0.isEmpty ? nil : $0 } ?? remembered
            ?? lastSignIn(environment: environment) ?? local
    }

    /// The server root URL, with a trailing slash.
    static func url(_ text: String) throws -> URL {
        guard let url = URL(string: text.hasSuffix("/") ? text : text + "/"), url.host != nil else {
            throw CLIError("\(text) is not a server URL such as \(local)")
        }
        return url
    }

    /// `last-server`, beside the credentials: the account name of the server last signed in to.
    static func lastSignInFile(environment: [String: String]) -> URL {
        Credentials.fileURL(environment: environment).deletingLastPathComponent().appendingPathComponent("last-server")
    }

    static func lastSignIn(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        guard let text = try? String(contentsOf: lastSignInFile(environment: environment), encoding: .utf8) else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// Called by `strata login` once it has signed in. A failure to write is not the sign-in's.
    static func rememberSignIn(_ serverURL: URL, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let file = lastSignInFile(environment: environment)
        try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? Data((Credentials.account(for: serverURL) + "\n").utf8).write(to: file, options: .atomic)
    }

    // MARK: Replicas

    /// `strata-server` in a replica's directory: the server its rows came from.
    static func replicaFile(_ directory: URL) -> URL {
        directory.appendingPathComponent("strata-server")
    }

    static func replicaServer(_ directory: URL) -> String? {
        (try? String(contentsOf: replicaFile(directory), encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Remembers the server of a replica the first time it syncs; refuses another server later,
    /// whose rows and change tokens would not be the replica's.
    static func bind(replica directory: URL, to serverURL: URL) throws {
        let account = Credentials.account(for: serverURL)
        if let known = replicaServer(directory), !known.isEmpty {
            guard known == account else {
                throw CLIError("\(directory.path) is a replica of \(known), not of \(account); sync it with --server \(known), or make a new replica in another directory")
            }
            return
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data((account + "\n").utf8).write(to: replicaFile(directory), options: .atomic)
    }
}
