import Foundation
import StrataClient

/// Where the CLI keeps tokens: `$STRATA_CREDENTIALS`, else `$XDG_CONFIG_HOME/strata/credentials`,
/// else `~/.config/strata/credentials`; one entry per server, readable by its owner only.
enum Credentials {
    static var fileURL: URL {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["STRATA_CREDENTIALS"], !path.isEmpty { return URL(fileURLWithPath: path) }
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
        return config.appendingPathComponent("strata").appendingPathComponent("credentials")
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
