import ArgumentParser
import Foundation
import Logging
@testable import StrataCLI
import StrataCore
import StrataDemo
import StrataServer
import StrataStorage
import StrataIdentity
import StrataOData
import StrataBlobs
import StrataDataTables
import StrataFeed
import Testing

/// `strata serve`'s options come from one table: docs/LIMITS.md's table is written from it, and each
/// row reads its flag, else its environment variable, else keeps the configuration's default.
@Suite("serve's option table")
struct ServeOptionTableTests {
    /// The options table lives in docs/LIMITS.md ("Every option"); the README links to it, which
    /// keeps the README under its size budget.
    static let limits = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/LIMITS.md")

    @Test("docs/LIMITS.md's options table is the one the table writes")
    func limitsTable() throws {
        let text = try String(contentsOf: Self.limits, encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "| option | environment | default | meaning |"), "docs/LIMITS.md has no options table")
        let table = lines[start...].prefix { $0.hasPrefix("|") }.joined(separator: "\n") + "\n"
        #expect(table == ServeOptions.markdownTable,
                "docs/LIMITS.md's options table is out of date: run `swift run strata serve --options-markdown` and put its output in place of the table")
    }

    @Test("Every row has a flag or a variable of its own, and the variables are STRATA_ names")
    func rowsAreDistinct() {
        let flags = ServeOptions.table.compactMap(\.flag)
        let variables = ServeOptions.table.map(\.variable)
        #expect(Set(flags).count == flags.count)
        #expect(Set(variables).count == variables.count)
        #expect(variables.allSatisfy { $0.hasPrefix("STRATA_") })
    }

    @Test("Without flags or variables, the configuration keeps its defaults")
    func defaults() throws {
        let setup = try ServeOptions.parse([]).setup(environment: [:])
        let defaults = StrataConfiguration()
        #expect(setup.configuration.port == defaults.port)
        #expect(setup.configuration.pageSize == defaults.pageSize)
        #expect(setup.configuration.statementTimeout == defaults.statementTimeout)
        #expect(setup.configuration.database == nil)
        #expect(!setup.configuration.demo)
        #expect(setup.eventLoops == nil)
    }

    @Test("A variable applies when its flag is not given; a flag wins over it")
    func environmentFallback() throws {
        let environment = [
            "STRATA_PORT": "9090", "STRATA_PAGE_SIZE": "50", "STRATA_STATEMENT_TIMEOUT": "0", "STRATA_IDLE_TIMEOUT": "2m",
            "STRATA_MAX_TOP": "77", "STRATA_TRUSTED_PROXIES": "10.0.0.0/8,192.168.1.1", "STRATA_DEMO": "yes",
            "STRATA_DATABASE": "postgres://ann@db.example.com/sales", "STRATA_EVENT_LOOPS": "3", "STRATA_PASSWORD_HASH_COST": "5",
            "STRATA_TOKEN_LIFETIME": "30", "STRATA_MAX_BLOB_SIZE": "1000", "STRATA_LOG_LEVEL": "DEBUG",
        ]
        let fromEnvironment = try ServeOptions.parse([]).setup(environment: environment).configuration
        #expect(fromEnvironment.port == 9090)
        #expect(fromEnvironment.pageSize == 50)
        #expect(fromEnvironment.statementTimeout == nil)
        #expect(fromEnvironment.connections.idleTimeout == .seconds(120))
        #expect(fromEnvironment.queryLimits.maxTop == 77)
        #expect(fromEnvironment.trustedProxies == (try TrustedProxies(parsing: ["10.0.0.0/8", "192.168.1.1"])))
        #expect(fromEnvironment.demo)
        #expect(fromEnvironment.database == .postgres(PostgresLocation(host: "db.example.com", username: "ann", database: "sales")))
        #expect(fromEnvironment.auth.passwordHashCost == 5)
        #expect(fromEnvironment.auth.accessTokenLifetime == 1800)
        #expect(fromEnvironment.maxBlobSize == 1000)
        #expect(fromEnvironment.logLevel == .debug)
        #expect(try ServeOptions.parse([]).setup(environment: environment).eventLoops == 3)

        let flags = try ServeOptions.parse(["--port", "7070", "--page-size", "20", "--trusted-proxy", "127.0.0.1", "--statement-timeout", "500ms"])
            .setup(environment: environment).configuration
        #expect(flags.port == 7070)
        #expect(flags.pageSize == 20)
        #expect(flags.statementTimeout == .milliseconds(500))
        #expect(flags.trustedProxies == (try TrustedProxies(parsing: ["127.0.0.1"])))
        #expect(flags.queryLimits.maxTop == 77)
    }

    @Test("A value out of bounds or unreadable is refused with a message that names the option", arguments: [
        (["--page-size", "0"], [:], "--page-size must be at least 1"),
        ([], ["STRATA_PAGE_SIZE": "many"], "STRATA_PAGE_SIZE must be a number, not many"),
        (["--max-top", "0"], [:], "--max-top must be at least 1"),
        ([], ["STRATA_MAX_EXPAND_WIDTH": "0"], "--max-expand-width must be at least 1"),
        (["--token-lifetime", "0"], [:], "--token-lifetime must be at least 1 minute"),
        (["--header-timeout", "500ms"], [:], "--header-timeout must be at least 1s"),
        (["--idle-timeout", "soon"], [:], "--idle-timeout takes a duration such as 500ms, 10s, 2m, 1h or 30d, not soon"),
        ([], ["STRATA_STATEMENT_TIMEOUT": "-1s"], "--statement-timeout takes a duration such as 500ms, 10s, 2m, 1h or 30d, not -1s"),
        (["--min-body-rate=-1"], [:], "--min-body-rate must not be negative"),
        (["--max-blob-size=-1"], [:], "--max-blob-size must not be negative"),
        (["--database-connections", "1001"], [:], "--database-connections must be from 1 to 1000"),
        (["--event-loops", "257"], [:], "--event-loops must be from 1 to 256"),
        ([], ["STRATA_EVENT_LOOPS": "many"], "STRATA_EVENT_LOOPS must be a number, not many"),
        (["--log-level", "loud"], [:], "--log-level must be one of trace, debug, info, notice, warning, error, critical"),
        ([], ["STRATA_PASSWORD_HASH_COST": "3"], "STRATA_PASSWORD_HASH_COST must be a number from 4 to 31, not 3"),
        (["--trusted-proxy", "nowhere"], [:], "a trusted proxy is an IP address or a CIDR block such as 10.0.0.0/8, not nowhere"),
        (["--database", "mysql://db/x"], [:], "--database must be a SQLite file path or a postgres:// URL, not mysql://db/x"),
        (["--max-connections", "0"], [:], "--max-connections must be at least 1"),
        (["--sql-cross-join-limit", "0"], [:], "--sql-cross-join-limit must be at least 1"),
        (["--max-queries-per-caller", "0"], [:], "--max-queries-per-caller must be at least 1"),
    ] as [([String], [String: String], String)])
    func refusals(_ arguments: [String], _ environment: [String: String], _ message: String) throws {
        let options = try ServeOptions.parse(arguments)
        #expect {
            _ = try options.setup(environment: environment)
        } throws: { error in
            (error as? ValidationError)?.message == message
        }
    }

    @Test("Each flag's help names its variable and default, as the table gives them")
    func help() {
        let help = ServeCommand.helpMessage(columns: 400)
        for row in ServeOptions.table {
            guard let flag = row.flag else { continue }
            #expect(help.contains("--\(flag)"), "\(flag)")
            #expect(help.contains("env: \(row.variable)"), "\(row.variable)")
            if let shown = row.defaultValue.text?.replacingOccurrences(of: "`", with: "") {
                #expect(help.contains("default: \(shown)"), "\(flag): \(shown)")
            }
        }
    }
}
