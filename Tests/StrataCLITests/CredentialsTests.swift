import Foundation
@testable import StrataCLI
import Testing

/// Where `strata login` keeps tokens: `$STRATA_CREDENTIALS`, `$XDG_CONFIG_HOME/strata`, `$HOME/.config/strata`.
@Suite("Credentials' location")
struct CredentialsTests {
    @Test("$HOME decides the file when nothing more specific is set")
    func home() {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("strata-home-\(UUID().uuidString.prefix(8))").path
        #expect(Credentials.fileURL(environment: ["HOME": home]).path == home + "/.config/strata/credentials")
    }

    @Test("$XDG_CONFIG_HOME wins over $HOME, and $STRATA_CREDENTIALS over both; empty values count as unset")
    func precedence() {
        let base = ["HOME": "/tmp/home-a", "XDG_CONFIG_HOME": "/tmp/config-b"]
        #expect(Credentials.fileURL(environment: base).path == "/tmp/config-b/strata/credentials")
        #expect(Credentials.fileURL(environment: base.merging(["STRATA_CREDENTIALS": "/tmp/c/tokens"]) { $1 }).path == "/tmp/c/tokens")
        #expect(Credentials.fileURL(environment: base.merging(["XDG_CONFIG_HOME": ""]) { $1 }).path == "/tmp/home-a/.config/strata/credentials")
        #expect(Credentials.fileURL(environment: ["HOME": "/tmp/home-a", "STRATA_CREDENTIALS": ""]).path == "/tmp/home-a/.config/strata/credentials")
    }
}
