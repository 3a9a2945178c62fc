import ArgumentParser
import Foundation
import StrataCore
import StrataServer
import StrataIdentity

/// `strata issuer add|list|remove|rule`: identity providers whose tokens Strata accepts (the SpeakEasy sample's federated sign-in).
struct IssuerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "issuer",
        abstract: "Trust identity providers and map their claims to Strata roles.",
        discussion: """
            A request bearing a JWT from a trusted issuer (RS256 or ES256, signed by a key of its \
            JWKS, naming the configured audience, not expired) is accepted, and the issuer's rule \
            group gives it roles: each rule maps a claim type with a value (exact, a suffix, or any \
            value) to a role, as Access Control Service rule groups did. The same token can be \
            exchanged at POST /auth/token (grant_type=urn:ietf:params:oauth:grant-type:token-exchange) \
            for a Strata token carrying the mapped roles.
            """,
        subcommands: [Add.self, List.self, Remove.self, Rule.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Trust an issuer, or replace its audience and keys.",
            discussion: """
                Example: strata issuer add https://idp.example.org --audience strata --jwks-file idp.jwks \
                --rule "email suffix @example.org editor" --rule "sub any reader"
                """)
        @Argument(help: "The issuer, exactly as its tokens' iss claim names it.") var issuer: String
        @Option(help: "The audience (aud) its tokens must name.") var audience: String
        @Option(name: .customLong("jwks-file"), help: "A file holding its JWKS document (public keys).") var jwksFile: String?
        @Option(help: "Its JWKS document inline.") var jwks: String?
        @Option(name: .customLong("rule"), help: "\"CLAIM any ROLE\", \"CLAIM equals VALUE ROLE\" or \"CLAIM suffix VALUE ROLE\"; replaces the issuer's rules (repeatable).")
        var rules: [String] = []
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let document: String
            switch (jwksFile, jwks) {
            case (let file?, nil):
                do { document = try String(contentsOfFile: file, encoding: .utf8) } catch {
                    throw ValidationError("cannot read \(file): \(error.localizedDescription)")
                }
            case (nil, let inline?): document = inline
            default: throw ValidationError("give the issuer's keys with exactly one of --jwks-file or --jwks")
            }
            var read: [ClaimRule] = []
            do {
                for text in rules { read.append(try ClaimRule(parsing: text)) }
            } catch {
                throw ValidationError(error.message)
            }
            let parsed = read
            try await storage.administer { admin in
                try await admin.putIssuer(issuer: issuer, audience: audience, jwks: document, rules: parsed.isEmpty ? nil : parsed)
            }
            print("Trusting \(issuer) for audience \(audience)\(parsed.isEmpty ? "" : " with \(parsed.count) rule\(parsed.count == 1 ? "" : "s")").")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List trusted issuers and their rules.")
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let issuers = try await storage.administer { try await $0.listIssuers() }
            if issuers.isEmpty { print("No trusted issuers.") }
            for issuer in issuers {
                print("\(issuer.issuer)\taudience \(issuer.audience)")
                for rule in issuer.rules { print("\t\(rule)") }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop trusting an issuer; tokens exchanged for its tokens stop working.")
        @Argument(help: "The issuer.") var issuer: String
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            try await storage.administer { try await $0.removeIssuer(issuer) }
            print("No longer trusting \(issuer).")
        }
    }

    struct Rule: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add or remove one rule of an issuer's rule group.",
            subcommands: [Add.self, Remove.self])

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Add a rule: a claim → a role.")
            @OptionGroup var rule: RuleOptions
            @OptionGroup var storage: StorageOptions

            func run() async throws {
                let parsed = try rule.rule
                try await storage.administer { try await $0.addRule(parsed, issuer: rule.issuer) }
                print("Added rule \(parsed).")
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Remove a rule.")
            @OptionGroup var rule: RuleOptions
            @OptionGroup var storage: StorageOptions

            func run() async throws {
                let parsed = try rule.rule
                let removed = try await storage.administer { try await $0.removeRule(parsed, issuer: rule.issuer) }
                print(removed ? "Removed rule \(parsed)." : "No such rule.")
            }
        }
    }

    struct RuleOptions: ParsableArguments {
        @Argument(help: "The issuer.") var issuer: String
        @Option(help: "The input claim type (email, sub, groups, …).") var claim: String
        @Flag(help: "Match any value of the claim.") var any = false
        @Option(help: "Match this exact value.") var equals: String?
        @Option(help: "Match values ending with this text.") var suffix: String?
        @Option(help: "The Strata role the rule gives.") var role: String

        var rule: ClaimRule {
            get throws {
                switch (any, equals, suffix) {
                case (true, nil, nil): return ClaimRule(claim: claim, match: .any, role: role)
                case (false, let value?, nil): return ClaimRule(claim: claim, match: .equals(value), role: role)
                case (false, nil, let value?): return ClaimRule(claim: claim, match: .suffix(value), role: role)
                default: throw ValidationError("give exactly one of --any, --equals VALUE or --suffix VALUE")
                }
            }
        }
    }
}
