import ArgumentParser
import Foundation
import StrataServer
import StrataIdentity

/// `strata keys rotate|list`: the token signing keys in the system database.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Rotate and list the keys Strata signs its access tokens with.",
        discussion: """
            The keys live in Strata's system database (the same --data, --database or \
            --system-database as `strata serve`), sealed with the secret in STRATA_KEY_SECRET or \
            --key-secret-file, or else with DIR/key-encryption.key; every server on that database \
            shares them. A rotated-out key still verifies the tokens it signed until they have \
            expired (--token-lifetime, plus a minute). The commands work with no server running; \
            servers sign with a new key once they hear of it (PostgreSQL announces it), or within \
            30 seconds. See docs/KEYS.md.
            """,
        subcommands: [Rotate.self, List.self])

    /// What `rotate` and `list` read besides the storage options.
    struct KeyOptions: ParsableArguments {
        @Option(name: ServeOptions.keySecretFile.name, help: ServeOptions.keySecretFile.help) var keySecretFile: String?
        @Option(name: ServeOptions.tokenLifetime.name, help: ServeOptions.tokenLifetime.help) var tokenLifetime: Int?

        func apply(to setup: inout ServeSetup, environment: [String: String]) throws {
            try ServeOptions.keySecretFile.resolve(given: keySecretFile, environment: environment, into: &setup)
            try ServeOptions.keySecret.resolve(given: nil, environment: environment, into: &setup)
            try ServeOptions.tokenLifetime.resolve(given: tokenLifetime, environment: environment, into: &setup)
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a new signing key; the current ones verify until their tokens have expired.",
            discussion: "Example: strata keys rotate --algorithm ES256 --database postgres://strata@db/shop")
        @Option(help: "HS256 (a shared secret) or ES256 (its public key is published at /.well-known/jwks.json).")
        var algorithm = "HS256"
        @Flag(help: "Seal the new key with the key secret where the current one is sealed with DIR/key-encryption.key.")
        var changeSealing = false
        @Flag(help: "Rotate the key of change-feed tokens (delta links, $tables tokens, event ids) instead; tokens made with the old key keep working for the change retention.")
        var feed = false
        @OptionGroup var keys: KeyOptions
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            if feed {
                let id = try await storage.administer { admin in try await admin.rotateFeedKey() }
                print("Added the feed key \(id); servers make new change-feed tokens with it once they hear of it. Tokens made before still work.")
                return
            }
            guard let algorithm = TokenAlgorithm(name: algorithm) else { throw ValidationError("--algorithm must be HS256 or ES256, not \(algorithm)") }
            let environment = ProcessInfo.processInfo.environment
            let (added, all) = try await storage.administer(adjust: { try keys.apply(to: &$0, environment: environment) }) { admin in
                (try await admin.rotateSigningKey(algorithm: algorithm, changeSealing: changeSealing), try await admin.listSigningKeys())
            }
            print("Added the \(added.algorithm) key \(added.kid); it signs new tokens from now on.")
            for key in all where key.kid != added.kid {
                print("\(key.kid) verifies the tokens it signed until \(KeysCommand.text(key.verifiesUntil)).")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the signing keys: kid, algorithm, created, and whether it signs or until when it verifies.")
        @OptionGroup var keys: KeyOptions
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            let all = try await storage.administer(adjust: { try keys.apply(to: &$0, environment: environment) }) { try await $0.listSigningKeys() }
            print(KeysCommand.lines(all, now: Date()).joined(separator: "\n"))
        }
    }

    /// One line per key, newest first: `kid  algorithm  created  signs | verifies until … | expired …`.
    static func lines(_ keys: [SigningKeySummary], now: Date) -> [String] {
        guard !keys.isEmpty else { return ["No signing keys yet; the first server to start creates one."] }
        var lines = ["kid\talgorithm\tcreated\tstate"]
        for key in keys {
            let state: String
            if let until = key.verifiesUntil {
                state = until > now ? "verifies until \(text(until))" : "expired \(text(until))"
            } else {
                state = key.kid == keys.first(where: { $0.retiredAt == nil })?.kid ? "signs" : "active"
            }
            lines.append("\(key.kid)\t\(key.algorithm)\t\(text(key.createdAt))\t\(state)")
        }
        return lines
    }

    static func text(_ date: Date?) -> String {
        date.map { $0.formatted(.iso8601) } ?? "-"
    }
}
