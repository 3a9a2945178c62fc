import ArgumentParser
@testable import StrataCLI
import StrataServer
import StrataStorage
import StrataIdentity
import StrataOData
import StrataBlobs
import StrataDataTables
import StrataFeed
import Testing

/// `--change-retention` and the `d` unit of durations.
@Suite("serve --change-retention")
struct ChangeRetentionOptionTests {
    @Test("30 days by default; 7d, 12h and STRATA_CHANGE_RETENTION are read; less than a minute is refused")
    func retention() throws {
        #expect(try ServeOptions.parse([]).setup(environment: [:]).configuration.changeRetention == .seconds(30 * 86_400))
        #expect(try ServeOptions.parse(["--change-retention", "7d"]).setup(environment: [:]).configuration.changeRetention == .seconds(7 * 86_400))
        #expect(try ServeOptions.parse([]).setup(environment: ["STRATA_CHANGE_RETENTION": "12h"]).configuration.changeRetention == .seconds(12 * 3600))
        #expect(throws: (any Error).self) { try ServeOptions.parse(["--change-retention", "5s"]).setup(environment: [:]) }
        #expect(throws: (any Error).self) { try ServeOptions.parse(["--change-retention", "2w"]).setup(environment: [:]) }
    }

    @Test("Durations take days and print whole days as d")
    func days() throws {
        #expect(try DurationText.parse("30d", option: "--x") == .seconds(30 * 86_400))
        #expect(try DurationText.parse("1.5d", option: "--x") == .seconds(129_600))
        #expect(DurationText.option(.seconds(30 * 86_400)) == "30d")
        #expect(DurationText.option(.seconds(90)) == "90s")
        #expect(throws: (any Error).self) { try DurationText.parse("400d", option: "--x") }
    }
}
