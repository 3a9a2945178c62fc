import Foundation
import StrataClient

/// Where the CLI keeps tokens: `$STRATA_CREDENTIALS`, else `$XDG_CONFIG_HOME/strata/credentials`,
/// else `$HOME/.config/strata/credentials`; one entry per server, readable by its owner only.
enum Credentials {
    static var fileURL: URL { fileURL(environment: ProcessInfo.processInfo.environment) }

    /// The file for an environment. `$HOME` wins over the account database's home directory, as
    /// for every other program, so that a different `HOME` (a test, `sudo -E`, a container) gets
    /// its own credentials.
    static func fileURL(environment: [String: String]) -> URL {
        if let path = environment["STRATA_CREDENTIALS"], !path.isEmpty { return URL(fileURLWithPath: path) }
        let config = nonEmpty(environment["XDG_CONFIG_HOME"]).map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? (nonEmpty(environment["HOME"]).map { URL(fileURLWithPath: $0, isDirectory: true) }
                ?? FileManager.default.homeDirectoryForCurrentUser).appendingPathComponent(".config")
        return config.appendingPathComponent("strata").appendingPathComponent("credentials")
    }

    private static func nonEmpty(_ text: String?) -> String? {
        text.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The account name of a server: its scheme, host and port, `http://127.0.0.1:8080`.
    static func account(for serverURL: URL) -> String {
        var components = URLComponents()
        components.scheme = serverURL.scheme?.lowercased()
        components.host = serverURL.host?.lowercased()
        components.port = serverURL.port
        return components.string ?? serverURL.absoluteString
    }

    static func store(for serverURL: URL) -> FileTokenStore {
        FileTokenStore(fileURL: fileURL, account: account(for: serverURL))
    }

    /// A session for the server's stored tokens, nil when there are none.
    static func session(for serverURL: URL) async throws -> AuthSession? {
        let store = store(for: serverURL)
        guard try await store.loadTokens() != nil else { return nil }
        return AuthSession(serverURL: URL(string: account(for: serverURL) + "/")!, store: store)
    }
}
