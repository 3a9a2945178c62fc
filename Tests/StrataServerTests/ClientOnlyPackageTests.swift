import Foundation
import Testing

/// An app that adds only StrataClient must not fetch the server's dependencies: Package.swift guards
/// every server-only product with the trait `Server`, and an app turns the default traits off. This
/// resolves such an app as SwiftPM does for any app, and counts what it fetched.
@Suite("Packaging: an app that depends on StrataClient alone")
struct ClientOnlyPackageTests {
    /// The repository root, from this file's place in it.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("With traits: [], resolving the app fetches StrataClient's own dependencies and nothing of the server")
    func resolvesFewPackages() async throws {
        let app = FileManager.default.temporaryDirectory.appendingPathComponent("strata-client-app-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: app.appendingPathComponent("Sources/App"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: app) }
        // The dependency line the README shows, with a path instead of the repository's URL.
        let manifest = """
            // swift-tools-version:6.1
            import PackageDescription
            let package = Package(
                name: "App",
                platforms: [.macOS(.v15), .iOS(.v18)],
                dependencies: [.package(path: "\(Self.root.path)", traits: [])],
                targets: [.executableTarget(name: "App", dependencies: [.product(name: "StrataClient", package: "\(Self.root.lastPathComponent)")])]
            )
            """
        try Data(manifest.utf8).write(to: app.appendingPathComponent("Package.swift"))
        try Data("import StrataClient\n".utf8).write(to: app.appendingPathComponent("Sources/App/main.swift"))

        let resolved = try await ChildProcess.run("swift", ["package", "resolve"], directory: app.path)
        #expect(resolved.status == 0, "\(resolved.output)\(resolved.errors)")
        let pins = try Self.pins(in: app.appendingPathComponent("Package.resolved"))
        // swift-crypto and what it needs (swift-asn1); the root itself is a path, never pinned.
        #expect(pins.count <= 4, "the app resolved \(pins.count) packages: \(pins.sorted())")
        for server in ["hummingbird", "postgres-nio", "swift-nio", "sqlite-nio", "async-http-client", "swift-prometheus", "jwt-kit"] {
            #expect(!pins.contains(server), "an app that uses only StrataClient resolved \(server)")
        }
        #expect(pins.contains("swift-crypto"), "StrataClient's one dependency is missing from \(pins.sorted())")
    }

    /// The identities of Package.resolved's pins (none when the file was not written: nothing to pin).
    static func pins(in file: URL) throws -> Set<String> {
        guard FileManager.default.fileExists(atPath: file.path) else { return [] }
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
        let pins = object?["pins"] as? [[String: Any]] ?? []
        return Set(pins.compactMap { $0["identity"] as? String })
    }
}
