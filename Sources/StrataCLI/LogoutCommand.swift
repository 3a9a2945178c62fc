import ArgumentParser
import Foundation
import StrataClient

struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Sign out of a Strata server: the server revokes the tokens and they are removed from this computer.")

    @Argument(help: ArgumentHelp("The server. \(DefaultServer.help)"))
    var server: String?

    func run() async throws {
        let text = DefaultServer.text(option: server)
        guard let url = URL(string: text), url.host != nil else {
            throw ValidationError("\(text) is not a server URL such as http://127.0.0.1:8080")
        }
        guard let session = try await Credentials.session(for: url) else {
            print("Not signed in to \(Credentials.account(for: url)).")
            return
        }
        do {
            try await session.signOut()
            print("Signed out of \(Credentials.account(for: url)).")
        } catch {
            // The tokens are gone from this computer either way; say what the server did not do.
            print("Removed the tokens for \(Credentials.account(for: url)), but the server could not revoke them: \(error)")
            throw ExitCode.failure
        }
    }
}
