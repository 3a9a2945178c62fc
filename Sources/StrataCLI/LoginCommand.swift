import ArgumentParser
import Foundation
import StrataClient
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in to a Strata server and keep the tokens for later commands.",
        discussion: """
            Asks for the password without showing it, or reads it from standard input with \
            --password-stdin (for scripts: never put a password on the command line). The tokens are \
            stored in ~/.config/strata/credentials (or $XDG_CONFIG_HOME/strata/credentials, or \
            $STRATA_CREDENTIALS), readable only by you; `strata get` uses and refreshes them, \
            `strata logout` removes them.

            With --provider, signs in through an identity provider instead: the command prints a URL \
            (and opens it when there is a display), the browser signs in at the provider and comes back \
            to a listener on 127.0.0.1 (RFC 8252 §7.3), as `gh auth login` and `gcloud auth login` do. \
            The service must register http://127.0.0.1/callback (`strata service sign-in`).

              strata login http://127.0.0.1:8080 --username editor
              printf '%s\\n' "$PASSWORD" | strata login http://127.0.0.1:8080 --username editor --password-stdin
              strata login http://127.0.0.1:8080 --provider google
            """)

    @Argument(help: "The server, such as http://127.0.0.1:8080.")
    var server: String

    @Option(help: "The account to sign in as (with a password).")
    var username: String?

    @Option(help: "Sign in through this identity provider (see GET /auth/providers) instead of with a password.")
    var provider: String?

    @Option(help: "With --provider: the service whose registered redirect URI applies, when several register it.")
    var service: String?

    @Option(help: "With --provider: seconds to wait for the browser.")
    var timeout: Int = 300

    @Flag(name: .customLong("password-stdin"), help: "Read the password from the first line of standard input.")
    var passwordFromStandardInput = false

    func run() async throws {
        guard let url = URL(string: server), url.host != nil else {
            throw ValidationError("\(server) is not a server URL such as http://127.0.0.1:8080")
        }
        let store = Credentials.store(for: url)
        let session = AuthSession(serverURL: URL(string: Credentials.account(for: url) + "/")!, store: store)
        let tokens: Tokens
        switch (username, provider) {
        case (let username?, nil):
            let password = try passwordFromStandardInput ? Self.readStandardInput() : Self.prompt("Password for \(username): ")
            tokens = try await session.signIn(username: username, password: password)
        case (nil, let provider?):
            let listener = try LoopbackRedirect()
            let timeout = TimeInterval(self.timeout)
            tokens = try await session.signIn(with: provider, redirectURI: listener.redirectURI, service: service) { url, _ in
                FileHandle.standardError.write(Data("Open this URL in a browser to sign in with \(provider):\n\n  \(url.absoluteString)\n\n".utf8))
                Self.openInBrowser(url)
                return try await listener.wait(timeout: timeout)
            }
        default:
            throw ValidationError("give --username (a password sign-in) or --provider (an identity provider), not both")
        }
        let who = try await session.claims?.subject ?? username ?? "?"
        var message = "Signed in to \(store.account) as \(who)"
        if let expiresAt = tokens.expiresAt {
            message += "; the access token lasts \(Int((expiresAt.timeIntervalSinceNow / 60).rounded())) minutes"
            message += tokens.refreshToken == nil ? "" : " and is refreshed automatically"
        }
        print(message + ".")
        DefaultServer.rememberSignIn(url)
    }

    /// Opens a URL in the desktop's browser when there is a desktop; otherwise the printed URL is
    /// the way (a server over SSH). Failures are ignored for the same reason.
    static func openInBrowser(_ url: URL) {
        #if os(macOS)
        let opener = "open"
        #else
        let environment = ProcessInfo.processInfo.environment
        guard environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil else { return }
        let opener = "xdg-open"
        #endif
        var pid: pid_t = 0
        let arguments = [opener, url.absoluteString]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        _ = posix_spawnp(&pid, opener, nil, nil, &argv, environ)
    }

    static func readStandardInput() throws -> String {
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw ValidationError("--password-stdin: standard input has no password")
        }
        return line
    }

    /// Reads a line from the terminal with echo turned off.
    static func prompt(_ text: String) throws -> String {
        guard isatty(STDIN_FILENO) != 0 else {
            throw ValidationError("standard input is not a terminal; pass the password with --password-stdin")
        }
        FileHandle.standardError.write(Data(text.utf8))
        var original = termios()
        tcgetattr(STDIN_FILENO, &original)
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw ValidationError("no password given")
        }
        return line
    }
}
