import ArgumentParser
import StrataServer
import StrataBlobs
import StrataIdentity

/// `strata revoke role|rights|container|anonymous`: the undoing of `strata grant`.
struct RevokeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Take roles from accounts, rights from roles, or read access from anonymous callers.",
        discussion: """
            A running server on the same data stops honouring a role, a right or anonymous \
            access within a second.
            """,
        subcommands: [Role.self, Rights.self, Container.self, Anonymous.self])

    struct Role: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take a role from an account.")
        @Argument(help: "The account name.") var user: String
        @Argument(help: "The role.") var role: String
        @Option(help: "The service the role was given for (default: every service).") var service: String?
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let assignment = RoleAssignment(role: role, service: service)
            let removed = try await storage.administer { try await $0.revokeRole(assignment, from: user) }
            print(removed ? "\(user) no longer holds \(assignment)." : "\(user) did not hold \(assignment).")
        }
    }

    struct Rights: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a role's granted rights on a service (all, or of one table or some actions).")
        @Argument(help: "The role.") var role: String
        @Option(help: "The service.") var service: String
        @Option(help: "Only grants on this table (use * for the every-table grant).") var table: String?
        @Option(help: "Only these actions, comma-separated.") var actions: String?
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let parsed = try actions.map(GrantCommand.Rights.actions)
            let removed = try await storage.administer { try await $0.revoke(role: role, service: service, table: table, actions: parsed) }
            print("Removed \(removed) grant\(removed == 1 ? "" : "s").")
        }
    }

    struct Container: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a role's rights on a blob container (all, or some actions).")
        @Argument(help: "The role.") var role: String
        @Option(help: "The container; the every-container grants when left out.") var container: String?
        @Option(help: "Only these actions, comma-separated.") var actions: String?
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let parsed: [BlobAction]? = try actions.map(GrantCommand.actionList)
            let removed = try await storage.administer { try await $0.revokeContainer(role: role, container: container, actions: parsed) }
            print("Removed \(removed) grant\(removed == 1 ? "" : "s").")
        }
    }

    struct Anonymous: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Require credentials for every request to a service.")
        @Option(help: "The service.") var service: String
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            try await storage.administer { try await $0.setAnonymousAccess(.none, service: service) }
            print("\(service) now needs credentials.")
        }
    }
}
