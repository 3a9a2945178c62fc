import Foundation
@testable import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// `strata login SERVER --provider NAME` as a process: it prints the URL, a browser signs in at the
/// provider and comes back to the command's loopback listener, and the tokens land in the
/// credentials file.
@Suite(.serialized)
struct LoginCommandProviderTests {
    @Test("strata login --provider signs in through the provider with a loopback redirect", .timeLimit(.minutes(6)))
    func loopbackLogin() async throws {
        try await withSignInServer(.sqlite) { harness in
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("strata-login-\(UUID().uuidString.prefix(8))").path
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, scratch + "/out", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            posix_spawn_file_actions_addopen(&actions, 2, scratch + "/err", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            spawnClosesDescriptors(from: 3, &actions)
            let pid = try spawnChild(try StrataProcess.executable(), ["login", harness.strata, "--provider", "django", "--timeout", "60"],
                                     environment: ["STRATA_CREDENTIALS": scratch + "/credentials", "DISPLAY": nil, "WAYLAND_DISPLAY": nil],
                                     searchingPath: false, &actions)
            // Whatever fails below, the command does not outlive the test.
            var reaped = false
            defer { if !reaped { kill(pid, SIGKILL); var status: Int32 = 0; waitpid(pid, &status, 0) } }
            var printed: String?
            for _ in 0..<200 where printed == nil {
                let text = (try? String(contentsOfFile: scratch + "/err", encoding: .utf8)) ?? ""
                printed = text.split(separator: "\n").first { $0.hasPrefix("  http") }.map { $0.trimmingCharacters(in: .whitespaces) }
                if printed == nil { try await Task.sleep(for: .milliseconds(50)) }
            }
            let url = try #require(printed, "the command printed no URL")
            let redirect = try #require(ScriptedBrowser.query(url)["redirect_uri"])
            #expect(redirect.hasPrefix("http://127.0.0.1:") && redirect.hasSuffix("/callback") && redirect != SignInHarness.loopbackRedirect)

            let browser = ScriptedBrowser(username: SignInHarness.alice.username, password: SignInHarness.alice.password)
            defer { Task { await browser.shutdown() } }
            let back = try await browser.signIn(starting: url, until: redirect)
            let page = try await browser.open(back)
            #expect(page.status == 200 && page.body.contains("You can close this tab"))

            // The command exits once it has the tokens; its own --timeout is 60 s. awaitExit reaps it,
            // also when it throws.
            reaped = true
            let status = try await awaitExit(of: pid, within: .seconds(90))
            let output = (try? String(contentsOfFile: scratch + "/out", encoding: .utf8)) ?? ""
            #expect(status == 0, "\(output)\((try? String(contentsOfFile: scratch + "/err", encoding: .utf8)) ?? "")")
            #expect(output.contains("as django.alice"))
            let credentials = try String(contentsOfFile: scratch + "/credentials", encoding: .utf8)
            #expect(credentials.contains("refreshToken") || credentials.contains("refresh_token"))
        }
    }
}
