import ArgumentParser
import Foundation
import StrataServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve every table of a database as an OData entity set.",
        discussion: """
            Each service is one database namespace: a SQLite file in the data directory \
            (strata-data/cardealer.sqlite is the service /cardealer/), or a schema of the PostgreSQL \
            database given with --database. Every option can also be set with the environment variable \
            its help names; options win over the environment. With --demo, the first start creates the \
            account `editor` and prints its password once on standard output.
            """)

    @OptionGroup var options: ServeOptions

    @Flag(name: .customLong("options-markdown"), help: "Print the options as the markdown table of docs/LIMITS.md, and exit.")
    var optionsMarkdown = false

    func run() async throws {
        if optionsMarkdown {
            print(ServeOptions.markdownTable, terminator: "")
            return
        }
        let setup = try options.setup(environment: ProcessInfo.processInfo.environment)
        if let loops = setup.eventLoops { EventLoopCount.apply(loops) }
        try await runServer(setup.configuration)
    }
}
