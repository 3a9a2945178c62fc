import ArgumentParser
import Foundation
import Logging
@testable import StrataCLI
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// `strata keys rotate|list` on the system database of a data directory, with no server running;
/// the serve options of the keys.
@Suite("strata keys")
struct KeysCommandTests {
    static func run(_ arguments: [String]) async throws {
        var command = try #require(try StrataCommand.parseAsRoot(arguments) as? any AsyncParsableCommand)
        try await command.run()
    }

    @Test("rotate adds keys, list shows them newest first with what each does, and no key material")
    func rotateAndList() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-keys-cli-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await Self.run(["keys", "rotate", "--algorithm", "ES256", "--data", directory])
        try await Self.run(["keys", "rotate", "--data", directory, "--token-lifetime", "30"])
        try await Self.run(["keys", "list", "--data", directory])
        // Sealed with the data directory's key-encryption key, made by the first rotate.
        let attributes = try FileManager.default.attributesOfItem(atPath: (directory as NSString).appendingPathComponent("key-encryption.key"))
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

        var configuration = StrataConfiguration()
        configuration.dataDirectory = directory
        configuration.auth.accessTokenLifetime = 30 * 60
        let keys = try await Administration.with(configuration, logger: Logger(label: "test")) { try await $0.listSigningKeys() }
        #expect(keys.map(\.algorithm) == ["HS256", "ES256"])
        #expect(keys[0].retiredAt == nil && keys[1].retiredAt != nil)
        // Tokens live 30 minutes here: the ES256 key verifies 30 minutes and the leeway more.
        let retired = try #require(keys[1].retiredAt)
        #expect(keys[1].verifiesUntil == retired.addingTimeInterval(30 * 60 + 60))

        let lines = KeysCommand.lines(keys, now: retired)
        #expect(lines.count == 3)
        #expect(lines[0] == "kid\talgorithm\tcreated\tstate")
        #expect(lines[1].hasPrefix("\(keys[0].kid)\tHS256\t") && lines[1].hasSuffix("\tsigns"))
        #expect(lines[2].hasPrefix("\(keys[1].kid)\tES256\t") && lines[2].contains("\tverifies until "))
        #expect(KeysCommand.lines(keys, now: retired.addingTimeInterval(3 * 3600))[2].contains("\texpired "))
    }

    @Test("An unknown algorithm is refused before anything is opened")
    func unknownAlgorithm() async throws {
        await #expect(throws: ValidationError.self) {
            try await Self.run(["keys", "rotate", "--algorithm", "RS256", "--data", "/nonexistent/strata"])
        }
    }

    @Test("serve reads --token-algorithm and the key secret from STRATA_KEY_SECRET or a file, never from a flag's value")
    func serveOptions() throws {
        let algorithm = try ServeOptions.parse(["--token-algorithm", "es256"]).setup(environment: [:]).configuration
        #expect(algorithm.auth.tokenAlgorithm == .es256)
        #expect(try ServeOptions.parse([]).setup(environment: [:]).configuration.auth.tokenAlgorithm == .hs256)
        #expect(throws: ValidationError.self) { try ServeOptions.parse(["--token-algorithm", "none"]).setup(environment: [:]) }

        let secret = "a secret of more than sixteen bytes"
        let fromEnvironment = try ServeOptions.parse([]).setup(environment: ["STRATA_KEY_SECRET": secret]).configuration.auth.keySecret
        #expect(fromEnvironment?.source == "STRATA_KEY_SECRET")
        #expect(fromEnvironment.map { "\($0)" }?.contains(secret) == false)

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("strata-secret-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try (secret + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let fromFile = try ServeOptions.parse(["--key-secret-file", file]).setup(environment: [:]).configuration.auth.keySecret
        #expect(fromFile?.source == "the file \(file)")
        // The file's newline is not part of the secret: both name the same key.
        #expect(fromFile?.bytes == fromEnvironment?.bytes)

        #expect(throws: ValidationError.self) {
            try ServeOptions.parse(["--key-secret-file", file]).setup(environment: ["STRATA_KEY_SECRET": secret])
        }
        #expect(throws: ValidationError.self) { try ServeOptions.parse([]).setup(environment: ["STRATA_KEY_SECRET": "short"]) }
        #expect(throws: ValidationError.self) { try ServeOptions.parse(["--key-secret-file", file + ".missing"]).setup(environment: [:]) }
    }
}
