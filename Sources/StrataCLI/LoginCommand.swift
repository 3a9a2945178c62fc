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

              strata login http://127.0.0.1:8080 --username editor
              printf '%s\\n' "$PASSWORD" | strata login http://127.0.0.1:8080 --username editor --password-stdin
            """)

    @Argument(help: "The server, such as http://127.0.0.1:8080.")
    var server: String

    @Option(help: "The account to sign in as.")
    var username: String

    @Flag(name: .customLong("password-stdin"), help: "Read the password from the first line of standard input.")
    var passwordFromStandardInput = false

    func run() async throws {
        guard let url = URL(string: server), url.host != nil else {
            throw ValidationError("\(server) is not a server URL such as http://127.0.0.1:8080")
        }
        let password = try passwordFromStandardInput ? Self.readStandardInput() : Self.prompt("Password for \(username): ")
        let store = Credentials.store(for: url)
        let session = AuthSession(serverURL: URL(string: Credentials.account(for: url) + "/")!, store: store)
        let tokens = try await session.signIn(username: username, password: password)
        var message = "Signed in to \(store.account) as \(username)"
        if let expiresAt = tokens.expiresAt {
            message += "; the access token lasts \(Int((expiresAt.timeIntervalSinceNow / 60).rounded())) minutes"
            message += tokens.refreshToken == nil ? "" : " and is refreshed automatically"
        }
        print(message + ".")
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
