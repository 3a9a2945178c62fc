import Foundation
import Testing

/// The server's folders are layers: a folder may use types declared in the folders below it, never
/// those above. The order is `ServerLayers.order`, documented in docs/ARCHITECTURE.md ("Layers").
///
/// The check reads the sources, not the compiled module: every top-level type, protocol and type
/// alias is attributed to the folder that declares it, and every identifier token of a file (outside
/// comments and string literals) that names such a type from another folder is a use of that folder.
/// Approximate (a local variable named like a type would count), but what it reports is real: each
/// failure names the file and the type.
@Suite("Layers")
struct LayerTests {
    @Test("No folder of the server uses a folder above it")
    func foldersUseOnlyLowerLayers() throws {
        let uses = try ServerLayers.uses(in: ServerLayers.sourceRoot)
        #expect(!uses.isEmpty, "No sources were read from \(ServerLayers.sourceRoot.path)")
        var seenExceptions: Set<ServerLayers.Edge> = []
        for use in uses {
            guard let from = ServerLayers.rank(use.edge.from), let to = ServerLayers.rank(use.edge.to) else {
                Issue.record("\(use.file) is in \(use.edge.from), or uses \(use.edge.to): a folder missing from ServerLayers.order")
                continue
            }
            if from >= to { continue }
            if ServerLayers.exceptions[use.edge] != nil {
                seenExceptions.insert(use.edge)
                continue
            }
            Issue.record("\(use.file) (\(use.edge.from)) uses \(use.type) from \(use.edge.to), a layer above it")
        }
        for (edge, reason) in ServerLayers.exceptions where !seenExceptions.contains(edge) {
            Issue.record("The exception \(edge.from) → \(edge.to) (\(reason)) is no longer needed: remove it from ServerLayers.exceptions")
        }
    }

    @Test("Below Serialization, only the request context (Auth) and reading the body (Request) know Hummingbird")
    func stagesWithoutHTTPResponses() throws {
        for file in try ServerLayers.files(in: ServerLayers.sourceRoot) where ServerLayers.withoutHummingbird.contains(ServerLayers.layer(of: file.path)) {
            #expect(!file.text.contains("import Hummingbird"), "\(file.path) imports Hummingbird")
        }
    }

    @Test("The checker sees a use of a higher layer")
    func checkerFindsUses() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("layers-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        for (path, text) in [
            "Storage/Store.swift": "struct Store { let name: String }\n// Plan in a comment\nlet s = \"Plan\"\n",
            "Planning/Plan.swift": "struct Plan { struct Inner {} }\nextension Store {}\n",
            "Storage/Uses.swift": "func f(_ p: Plan) {}\n",
            "Storage/Interpolates.swift": "let t = \"a \\(Later.name) b\"\n",
            "Routing/Later.swift": "enum Later {}\n",
        ] {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        let uses = try ServerLayers.uses(in: root).map { "\($0.file) \($0.edge.from)→\($0.edge.to) \($0.type)" }.sorted()
        #expect(uses == ["Planning/Plan.swift Planning→Storage Store", "Storage/Interpolates.swift Storage→Routing Later",
                         "Storage/Uses.swift Storage→Planning Plan"])
    }
}

/// The layer order of `Sources/StrataServer`, bottom first, and the reader that finds uses.
enum ServerLayers {
    /// Bottom first: each folder may use the folders before it.
    ///
    /// - Foundation (over the StrataSQL module, which holds all SQL): `Encoding`, `Storage`
    ///   (databases, catalog), `Observability`, `System` (the system database), `Service` (a
    ///   loaded service).
    /// - The request path, each stage using only the values of the stages before it: `Auth`
    ///   (authenticate) → `Request` (parse) → `Authorization` (decide every table's access once) →
    ///   `Planning` (pure) → `Execution` (rows and results, no HTTP) → `Serialization` (bytes and
    ///   responses).
    /// - Features built on the path: `Blobs`, `DataTables`, `Feed` (the change feed: deltas and live
    ///   streams, which use the compact form of `DataTables`).
    /// - The server: `Connection` (HTTP connection limits), `Provisioning` (what a server creates
    ///   when it starts), `Runtime` (the configuration and the running server's state: loaded
    ///   services, access policy, auth and blob services), `Admin` (`/admin` and the commands'
    ///   administration, which read the runtime), `Routing` (receives a request and runs the
    ///   stages in order, handing each only the values it needs), `Application` (wires it all up).
    static let order = [
        "Encoding", "Storage", "Observability", "System", "Service",
        "Auth", "Request", "Authorization", "Planning", "Execution", "Serialization",
        "Blobs", "DataTables", "Feed",
        "Connection", "Provisioning", "Runtime", "Admin", "Routing", "Application",
    ]

    /// Files that belong to another layer than their folder (none today; the SQL that once lived
    /// in Planning and Storage is the StrataSQL module now).
    static let layerOfPath: [(prefix: String, layer: String)] = []

    struct Edge: Hashable, CustomStringConvertible {
        var from: String
        var to: String
        var description: String { "\(from) → \(to)" }
    }

    /// Uses of a higher layer that are known and allowed for now, each with its reason. The test
    /// fails when one is no longer needed, so the list only shrinks.
    static let exceptions: [Edge: String] = [:]

    /// Layers that build no responses and read no requests: they return values.
    static let withoutHummingbird: Set<String> = [
        "Encoding", "Storage", "Observability", "System", "Service", "Authorization", "Planning", "Execution",
    ]

    static func rank(_ layer: String) -> Int? { order.firstIndex(of: layer) }

    static var sourceRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/StrataServer")
    }

    struct Use {
        var file: String
        var edge: Edge
        var type: String
    }

    /// The Swift files under `root`, by path relative to it, with their text.
    static func files(in root: URL) throws -> [(path: String, text: String)] {
        var files: [(path: String, text: String)] = []
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            let path = String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
            files.append((path, try String(contentsOf: url, encoding: .utf8)))
        }
        return files
    }

    /// Every use of a type declared in another layer, one per file, layer and type.
    static func uses(in root: URL) throws -> [Use] {
        let texts = try files(in: root).map { file in
            (file: file.path, layer: layer(of: file.path), text: strip(Array(file.text.utf8)))
        }
        var declared: [String: Set<String>] = [:]
        for entry in texts {
            for name in topLevelDeclarations(entry.text) { declared[name, default: []].insert(entry.layer) }
        }
        var uses: [Use] = []
        for entry in texts.sorted(by: { $0.file < $1.file }) {
            var seen: Set<String> = []
            for token in identifiers(entry.text) where seen.insert(token).inserted {
                for layer in declared[token] ?? [] where layer != entry.layer {
                    uses.append(Use(file: entry.file, edge: Edge(from: entry.layer, to: layer), type: token))
                }
            }
        }
        return uses
    }

    static func layer(of file: String) -> String {
        if let match = layerOfPath.first(where: { file.hasPrefix($0.prefix) }) { return match.layer }
        return file.split(separator: "/").first.map(String.init) ?? file
    }

    /// The source without comments, and with every string literal emptied but for its
    /// interpolations (code that may name types). Multi-line literals are emptied whole.
    static func strip(_ source: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(source.count)
        var i = 0
        let n = source.count
        func starts(_ s: String, at index: Int) -> Bool {
            let bytes = Array(s.utf8)
            return index + bytes.count <= n && Array(source[index..<index + bytes.count]) == bytes
        }
        while i < n {
            if starts("//", at: i) {
                while i < n, source[i] != UInt8(ascii: "\n") { i += 1 }
            } else if starts("/*", at: i) {
                var depth = 0
                repeat {
                    if starts("/*", at: i) { depth += 1; i += 2 } else if starts("*/", at: i) { depth -= 1; i += 2 } else { i += 1 }
                } while i < n && depth > 0
            } else if starts("\"\"\"", at: i) {
                i += 3
                while i < n, !starts("\"\"\"", at: i) { i += source[i] == UInt8(ascii: "\\") ? 2 : 1 }
                i += 3
                out.append(contentsOf: Array("\"\"".utf8))
            } else if source[i] == UInt8(ascii: "\"") {
                i += 1
                while i < n, source[i] != UInt8(ascii: "\""), source[i] != UInt8(ascii: "\n") {
                    if starts("\\(", at: i) {
                        // An interpolation is code: keep it, up to its closing parenthesis.
                        i += 2
                        var depth = 1
                        out.append(UInt8(ascii: " "))
                        while i < n, depth > 0 {
                            if source[i] == UInt8(ascii: "(") { depth += 1 } else if source[i] == UInt8(ascii: ")") { depth -= 1 }
                            if depth > 0 { out.append(source[i]) }
                            i += 1
                        }
                        out.append(UInt8(ascii: " "))
                        continue
                    }
                    i += source[i] == UInt8(ascii: "\\") ? 2 : 1
                }
                i += 1
                out.append(contentsOf: Array("\"\"".utf8))
            } else {
                out.append(source[i])
                i += 1
            }
        }
        return out
    }

    /// Identifier tokens that start with an upper-case letter, in order.
    static func identifiers(_ text: [UInt8]) -> [String] {
        var tokens: [String] = []
        var i = 0
        while i < text.count {
            if isIdentifierStart(text[i]), i == 0 || !isIdentifierPart(text[i - 1]) {
                var j = i
                while j < text.count, isIdentifierPart(text[j]) { j += 1 }
                if text[i] >= UInt8(ascii: "A"), text[i] <= UInt8(ascii: "Z") {
                    tokens.append(String(decoding: text[i..<j], as: UTF8.self))
                }
                i = j
            } else {
                i += 1
            }
        }
        return tokens
    }

    /// Names of the types, protocols and type aliases declared outside any braces.
    static func topLevelDeclarations(_ text: [UInt8]) -> [String] {
        let keywords: Set<String> = ["struct", "class", "enum", "actor", "protocol", "typealias"]
        var names: [String] = []
        var depth = 0
        var i = 0
        var previousWord: String?
        while i < text.count {
            let byte = text[i]
            if byte == UInt8(ascii: "{") { depth += 1; previousWord = nil; i += 1; continue }
            if byte == UInt8(ascii: "}") { depth -= 1; previousWord = nil; i += 1; continue }
            if isIdentifierStart(byte), i == 0 || !isIdentifierPart(text[i - 1]) {
                var j = i
                while j < text.count, isIdentifierPart(text[j]) { j += 1 }
                let word = String(decoding: text[i..<j], as: UTF8.self)
                if depth == 0, let previousWord, keywords.contains(previousWord), word.first?.isUppercase == true {
                    names.append(word)
                }
                previousWord = word
                i = j
                continue
            }
            if byte != UInt8(ascii: " "), byte != UInt8(ascii: "\t"), byte != UInt8(ascii: "\n") { previousWord = nil }
            i += 1
        }
        return names
    }

    private static func isIdentifierStart(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || byte == UInt8(ascii: "_")
    }

    private static func isIdentifierPart(_ byte: UInt8) -> Bool {
        isIdentifierStart(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }
}
