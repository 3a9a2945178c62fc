import ArgumentParser

/// The `strata` command. Its commands are top-level types named `…Command` in files of their own;
/// their subcommands are nested types (`UserCommand.Add`, `IssuerCommand.Rule.Add`), declared in
/// the command's file or, when that would grow long, in `…Command+Name.swift` (`BlobCommand+Get.swift`).
@main
struct StrataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Turn a relational database into secure OData services, and talk to them.",
        discussion: """
            Start with `strata serve --demo`: it creates three demo services on SQLite under ./strata-data \
            and serves them on http://127.0.0.1:8080.
            """,
        subcommands: [
            ServeCommand.self, GetCommand.self, SyncCommand.self, BlobCommand.self, LoginCommand.self, LogoutCommand.self,
            UserCommand.self, GrantCommand.self, RevokeCommand.self, IssuerCommand.self, ProviderCommand.self, ServiceCommand.self,
            KeysCommand.self, DemoDataCommand.self,
        ])
}
