import ArgumentParser
import Foundation
import StrataCore
import StrataServer
import StrataIdentity

/// `strata provider add|list|remove`: identity providers people sign in with on the hosted page.
struct ProviderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "provider",
        abstract: "Configure the identity providers of hosted sign-in (OpenID Connect or OAuth 2).",
        discussion: """
            Apps send people to /auth/sign-in (a page listing the providers) or straight to \
            /auth/authorize?provider=NAME; Strata signs them in at the provider and hands the app a \
            one-time code for its tokens. Register Strata at the provider with the redirect URI \
            PUBLIC-URL/auth/callback/NAME, and each app's own redirect URI with \
            `strata service sign-in SERVICE --redirect-uri …`.

              printf '%s\\n' "$SECRET" | strata provider add google --issuer https://accounts.google.com \\
                  --client-id 123.apps.googleusercontent.com --client-secret-stdin --display-name Google \\
                  --rule "email suffix @example.org editor" --claim "pass email" --claim "rename name displayName"
            """,
        subcommands: [Add.self, List.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a provider, or replace its settings and rules.",
            discussion: """
                An OpenID Connect provider is found by its issuer URL: its discovery document and keys are \
                fetched now, so a wrong URL is refused at once. A plain OAuth 2 provider (--kind oauth2) \
                needs its three endpoints; who signed in is read from its user-info endpoint (`sub` or `id`). \
                The client secret is read from standard input, sealed, and never shown again.
                """)
        @Argument(help: "The provider's name in URLs: lower-case letters, digits, '-' or '_'.") var name: String
        @Option(help: "oidc (default) or oauth2.") var kind: String = "oidc"
        @Option(help: "The issuer URL (the iss of its ID tokens); for OAuth 2, the name its users are linked under.") var issuer: String
        @Option(name: .customLong("client-id"), help: "The client id the provider issued to Strata.") var clientID: String
        @Flag(name: .customLong("client-secret-stdin"), help: "Read the client secret from the first line of standard input.")
        var secretFromStandardInput = false
        @Option(help: "Scopes to ask for, separated by spaces.") var scopes: String = "openid profile email"
        @Option(name: .customLong("display-name"), help: "What the sign-in page's button says after \"Sign in with\".") var displayName: String?
        @Option(help: "An https URL of the provider's icon.") var icon: String?
        @Option(name: .customLong("authorization-endpoint"), help: "For OAuth 2 (or to override discovery).") var authorizationEndpoint: String?
        @Option(name: .customLong("token-endpoint"), help: "For OAuth 2 (or to override discovery).") var tokenEndpoint: String?
        @Option(name: .customLong("userinfo-endpoint"), help: "For OAuth 2: where who signed in is read.") var userInfoEndpoint: String?
        @Flag(name: .customLong("pass-provider-token"), help: "Keep the provider's access token for the app (GET /auth/me/provider-token).")
        var passesProviderToken = false
        @Option(name: .customLong("rule"), help: "A role rule: \"CLAIM any ROLE\", \"CLAIM equals VALUE ROLE\" or \"CLAIM suffix VALUE ROLE\" (repeatable).")
        var rules: [String] = []
        @Option(name: .customLong("claim"), help: "An output claim: \"pass CLAIM\", \"rename CLAIM NEW\" or \"set CLAIM VALUE\" (repeatable).")
        var claims: [String] = []
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            guard let kind = IdentityProvider.Kind(rawValue: kind) else { throw ValidationError("--kind is oidc or oauth2, not \(self.kind)") }
            var roleRules: [ClaimRule] = [], claimRules: [ClaimOutput] = []
            do {
                for text in rules { roleRules.append(try ClaimRule(parsing: text)) }
                for text in claims { claimRules.append(try ClaimOutput(parsing: text)) }
            } catch {
                throw ValidationError(error.message)
            }
            let provider = IdentityProvider(
                name: name, kind: kind, issuer: issuer, clientID: clientID, scopes: scopes.split(separator: " ").map(String.init),
                displayName: displayName, iconURL: icon, authorizationEndpoint: authorizationEndpoint, tokenEndpoint: tokenEndpoint,
                userInfoEndpoint: userInfoEndpoint, passesProviderToken: passesProviderToken, roleRules: roleRules, claimRules: claimRules)
            let secret = try secretFromStandardInput ? ProviderSecret(LoginCommand.readStandardInput()) : nil
            try await storage.administer { try await $0.putProvider(provider, secret: secret) }
            print("Provider \(name) (\(kind.rawValue), \(issuer)) saved\(secret == nil ? "" : " with its client secret"). "
                  + "Register this redirect URI at the provider: PUBLIC-URL/auth/callback/\(name)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the providers with their rules; never their secrets.")
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let providers = try await storage.administer { try await $0.listProviders() }
            if providers.isEmpty { print("No identity providers.") }
            for provider in providers {
                print("\(provider.name)\t\(provider.kind.rawValue) \(provider.issuer)\tclient \(provider.clientID)"
                      + "\(provider.hasSecret ? " (secret stored)" : "")\t\"\(provider.displayName)\"\tscopes \(provider.scopes.joined(separator: " "))"
                      + (provider.passesProviderToken ? "\tpasses its token" : ""))
                for rule in provider.roleRules { print("\trole: \(rule)") }
                for rule in provider.claimRules { print("\tclaim: \(rule)") }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a provider; its linked identities are unlinked and its sign-ins end.")
        @Argument(help: "The provider's name.") var name: String
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            try await storage.administer { try await $0.removeProvider(name) }
            print("Removed provider \(name).")
        }
    }
}

extension ServiceCommand {
    /// `strata service sign-in SERVICE`: redirect URIs and sign-up.
    struct SignIn: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sign-in",
            abstract: "Show or change how a service takes part in hosted sign-in.",
            discussion: """
                Apps may only be sent back to the redirect URIs listed here, compared exactly: an app's \
                own scheme (com.example.app:/signed-in), https, or http on 127.0.0.1 for command lines. \
                With --sign-up on, a first sign-in through a provider and POST /auth/sign-up create \
                accounts with --sign-up-role in this service (never admin).

                  strata service sign-in hockey --redirect-uri com.example.hockey:/signed-in --sign-up on --sign-up-role reader
                """)
        @Argument(help: "The service.") var service: String
        @Option(name: .customLong("redirect-uri"), help: "A redirect URI apps may use; replaces the list (repeatable).")
        var redirectURIs: [String] = []
        @Flag(name: .customLong("no-redirect-uris"), help: "Remove every redirect URI.") var clearRedirectURIs = false
        @Option(name: .customLong("sign-up"), help: "on or off: whether people may create accounts.") var signUp: String?
        @Option(name: .customLong("sign-up-role"), help: "The role new accounts get in this service, or 'none'.") var signUpRole: String?
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let allows: Bool?
            switch signUp {
            case nil: allows = nil
            case "on"?: allows = true
            case "off"?: allows = false
            case let other?: throw ValidationError("--sign-up is on or off, not \(other)")
            }
            let uris: [String]? = clearRedirectURIs ? [] : (redirectURIs.isEmpty ? nil : redirectURIs)
            let role: SettingChange<String>? = signUpRole.map { $0 == "none" ? .serverDefault : .value($0) }
            let settings = try await storage.administer { admin in
                try await admin.configureSignIn(service, redirectURIs: uris, allowsSignUp: allows, signUpRole: role)
            }
            print("\(service): redirect URIs \(settings.redirectURIs.isEmpty ? "none" : settings.redirectURIs.joined(separator: " ")); "
                  + "sign-up \(settings.allowsSignUp ? "on" : "off")\(settings.signUpRole.map { ", new accounts get \($0)" } ?? "")")
        }
    }
}

extension UserCommand {
    /// `strata user link NAME --provider P --subject SUB`: an identity signs in to an existing account.
    struct Link: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Link an identity provider's user to an account.",
            discussion: "The subject is the provider's `sub` for the user; a refused sign-in's log line names it.")
        @Argument(help: "The account name.") var name: String
        @Option(help: "The provider's name.") var provider: String
        @Option(help: "The provider's subject (sub) of the user.") var subject: String
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            try await storage.administer { try await $0.linkIdentity(provider: provider, subject: subject, to: name) }
            print("Signing in with \(provider) as \(subject) now signs in to \(name).")
        }
    }
}
