import ArgumentParser
import Foundation
import StrataServer
import StrataBlobs
import StrataIdentity
import StrataOData

/// `strata grant role|rights|container|anonymous|list`: roles of accounts, table and container rights of roles, anonymous access.
struct GrantCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grant",
        abstract: "Give roles to accounts, rights to roles, or read access to anonymous callers.",
        discussion: """
            A caller may act on a table when the service allows anonymous reads (reads only), when \
            a built-in role it holds allows it (reader: read; editor and admin: read and write), or \
            when a role it holds was granted the action on that table. A granted right may carry a \
            row filter in OData $filter syntax, which may use the caller's claims as $claims.<name> \
            (for example: --filter 'ownerId eq $claims.sub', in single quotes so that the shell \
            leaves $claims alone); it applies to every read and write of the table, and claims \
            compare as strings. A running server on the same data sees new roles on its next \
            request, and rights and anonymous access within a second.
            """,
        subcommands: [Role.self, Rights.self, Container.self, Anonymous.self, List.self])

    struct Role: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Give an account a role.")
        @Argument(help: "The account name.") var user: String
        @Argument(help: "The role: reader, editor, admin or a custom role.") var role: String
        @Option(help: "Hold the role for this service only (default: every service).") var service: String?
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let assignment = RoleAssignment(role: role, service: service)
            let added = try await storage.administer { try await $0.grantRole(assignment, to: user) }
            print(added ? "\(user) now holds \(assignment)." : "\(user) already held \(assignment).")
        }
    }

    struct Rights: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Grant a role actions on a table (or every table) of a service.",
            discussion: "Example: strata grant rights owner --service hockey --table Equipment --actions read,update --filter 'brand eq $claims.sub'")
        @Argument(help: "The role.") var role: String
        @Option(help: "The service.") var service: String
        @Option(help: "The table (entity set); every table when left out.") var table: String?
        @Option(help: "Comma-separated: read, insert, update, delete, or all.") var actions: String
        @Option(help: "A row filter in OData $filter syntax; needs --table.") var filter: String?
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let parsed = try Self.actions(actions)
            try await storage.administer { try await $0.grant(role: role, service: service, table: table, actions: parsed, rowFilter: filter) }
            print("Granted \(role) \(parsed.map(\.rawValue).joined(separator: ",")) on \(table ?? "every table") of \(service)\(filter.map { " where \($0)" } ?? "").")
        }

        static func actions(_ text: String) throws -> [TableAction] {
            try GrantCommand.actionList(text)
        }
    }

    struct Container: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Grant a role actions on a blob container (or every container).",
            discussion: """
                Actions: read (list, download), write (upload) and delete. Without a grant, the built-in \
                roles held for every service decide: reader reads every container, editor and admin also \
                write and delete. A public-read container may be read by anyone. Example:

                  strata grant container photographer --container speakers --actions read,write
                """)
        @Argument(help: "The role.") var role: String
        @Option(help: "The container; every container when left out.") var container: String?
        @Option(help: "Comma-separated: read, write, delete, or all.") var actions: String
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let parsed: [BlobAction] = try GrantCommand.actionList(actions)
            try await storage.administer { try await $0.grantContainer(role: role, container: container, actions: parsed) }
            print("Granted \(role) \(parsed.map(\.rawValue).joined(separator: ",")) on \(container.map { "the container \($0)" } ?? "every container").")
        }
    }

    /// A comma-separated list of an action type's names, or `all`.
    static func actionList<Action: RawRepresentable & CaseIterable>(_ text: String) throws -> [Action] where Action.RawValue == String {
        if text == "all" { return Array(Action.allCases) }
        return try text.split(separator: ",").map { name in
            guard let action = Action(rawValue: name.lowercased()) else {
                throw ValidationError("'\(name)' is not an action; use \(Action.allCases.map(\.rawValue).joined(separator: ", ")) or all")
            }
            return action
        }
    }

    struct Anonymous: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Let callers without credentials read every table of a service.")
        @Option(help: "The service.") var service: String
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            try await storage.administer { try await $0.setAnonymousAccess(.read, service: service) }
            print("Anyone may now read \(service).")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List granted rights and anonymous access.")
        @Option(help: "Only this service.") var service: String?
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let (grants, access, containerGrants) = try await storage.administer { admin in
                (try await admin.listGrants(service: service), try await admin.anonymousAccess(), try await admin.listContainerGrants())
            }
            for (name, value) in access.sorted(by: { $0.key < $1.key }) where service == nil || service == name {
                print("\(name)\tanonymous\t\(value.rawValue)")
            }
            for grant in grants {
                print("\(grant.service)\t\(grant.role)\t\(grant.action.rawValue)\t\(grant.table ?? "*")\(grant.rowFilter.map { "\t\($0)" } ?? "")")
            }
            for grant in containerGrants where service == nil {
                print("/blobs/\(grant.container ?? "*")\t\(grant.role)\t\(grant.action.rawValue)")
            }
        }
    }
}
