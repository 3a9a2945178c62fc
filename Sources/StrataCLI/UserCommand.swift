import ArgumentParser
import Foundation
import StrataServer
import StrataIdentity

/// `strata user add|list|passwd|remove`: accounts in the system database.
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Manage the accounts that sign in to Strata.",
        discussion: """
            Accounts live in Strata's system database, beside the services (the same --data or \
            --database as `strata serve`). The commands work while the server runs; changes apply to \
            it within a second. Passwords are read from standard input (--password-stdin), never from \
            the command line, and stored as bcrypt hashes.
            """,
        subcommands: [Add.self, List.self, Passwd.self, Remove.self, Link.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an account.",
            discussion: """
                Example: printf %s "$PASSWORD" | strata user add alice --role editor --password-stdin
                Roles: reader (read every table), editor (read and write), admin (all, and /admin), or \
                a custom role with the rights `strata grant rights` gives it.
                """)

        @Argument(help: "The account name.") var name: String
        @Option(name: .customLong("role"), help: "A role to give (repeatable).") var roles: [String] = []
        @Option(help: "Hold the roles for this service only (default: every service).") var service: String?
        @Flag(name: .customLong("password-stdin"), help: "Read the password from standard input (required).") var passwordStdin = false
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            guard passwordStdin else { throw ValidationError("give the password on standard input with --password-stdin") }
            let password = try PasswordInput.read()
            let assignments = roles.map { RoleAssignment(role: $0, service: service) }
            try await storage.administer { try await $0.addUser(name, password: password, roles: assignments) }
            print("Created account \(name)\(assignments.isEmpty ? " (no roles)" : " with \(assignments.map(\.description).joined(separator: ", "))").")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List accounts and their roles.")
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let users = try await storage.administer { try await $0.listUsers() }
            if users.isEmpty { print("No accounts.") }
            for user in users {
                print("\(user.username)\t\(user.roles.isEmpty ? "-" : user.roles.map(\.description).joined(separator: ","))")
            }
        }
    }

    struct Passwd: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set an account's password; its tokens and sign-ins end.")
        @Argument(help: "The account name.") var name: String
        @Flag(name: .customLong("password-stdin"), help: "Read the password from standard input (required).") var passwordStdin = false
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            guard passwordStdin else { throw ValidationError("give the password on standard input with --password-stdin") }
            let password = try PasswordInput.read()
            try await storage.administer { try await $0.setPassword(name, password: password) }
            print("Password of \(name) changed.")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an account with its roles and sign-ins.")
        @Argument(help: "The account name.") var name: String
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            try await storage.administer { try await $0.removeUser(name) }
            print("Removed account \(name).")
        }
    }
}
