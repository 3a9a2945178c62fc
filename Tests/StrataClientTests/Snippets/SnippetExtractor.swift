import Foundation

/// Turns the ```swift blocks of the README and the DocC articles into Swift files that the test
/// target compiles, so that an example that stops compiling fails `swift test`.
///
/// `Scripts/extract-snippets` compiles this file alone to write the files; ``SnippetTests`` runs it
/// to check that they match the markdown. Keeping one implementation for both means the check can
/// only fail because the markdown changed, never because two extractors disagree.
///
/// Rules, for an article's author:
/// - Only blocks fenced as ```swift are compiled; shell and other text use ```sh, ```bash or a bare fence.
/// - Each block becomes one `async throws` function. Its `import` lines go to the top of the file;
///   type declarations and extensions at column 0 move to file level, so later blocks of the same
///   article can use them (`struct Person` in one block, `extension Person` in the next).
/// - `<!-- snippet-context: service: DataService, someDate: Date -->` names values the following
///   blocks assume; they become parameters of those functions. It holds until the next one.
/// - `<!-- snippet-declarations: struct Equipment: Decodable { var price: Decimal } -->` declares
///   types or functions the article mentions but does not show, once for the whole article.
enum SnippetExtractor {
    /// Markdown files with compiled snippets, relative to the package root: the README and every
    /// DocC article of StrataClient, StrataCore and StrataServer.
    static func sources(packageRoot: URL) throws -> [String] {
        var sources = ["README.md"]
        for module in catalogs {
            let docc = "Sources/\(module)/\(module).docc"
            let articles = try FileManager.default.contentsOfDirectory(atPath: packageRoot.appendingPathComponent(docc).path)
                .filter { $0.hasSuffix(".md") }
                .sorted()
            sources += articles.map { "\(docc)/\($0)" }
        }
        return sources
    }

    /// The modules whose DocC catalogs hold articles with snippets. StrataClient's come first and
    /// keep bare names; the others' generated files are prefixed with the module's name
    /// (`StrataServer.docc/SQLSafety.md` → `StrataServerSQLSafetySnippets.swift`), since two
    /// catalogs may hold articles of the same name.
    static let catalogs = ["StrataClient", "StrataCore", "StrataServer"]

    /// Where generated files go, relative to the package root.
    static let outputDirectory = "Tests/StrataClientTests/Snippets"

    /// The generated file for a markdown source: `README.md` → `ReadmeSnippets.swift`.
    static func outputName(for source: String) -> String {
        let base = ((source as NSString).lastPathComponent as NSString).deletingPathExtension
        let module = catalogs.dropFirst().first { source.hasPrefix("Sources/\($0)/") } ?? ""
        let name = base == "README" ? "Readme" : module + base
        return "\(name)Snippets.swift"
    }

    /// Every generated file, by name, for the markdown files under `packageRoot`; a source without
    /// ```swift blocks generates nothing.
    static func generate(packageRoot: URL) throws -> [String: String] {
        var files: [String: String] = [:]
        for source in try sources(packageRoot: packageRoot) {
            let markdown = try String(contentsOf: packageRoot.appendingPathComponent(source), encoding: .utf8)
            let name = outputName(for: source)
            if let text = try generate(markdown: markdown, source: source, namespace: (name as NSString).deletingPathExtension) {
                files[name] = text
            }
        }
        return files
    }

    struct Snippet {
        /// The line of the markdown file on which the code starts (1-based).
        var line: Int
        var code: [String]
        var parameters: String
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The generated file for one markdown file, or nil when it has no ```swift block.
    static func generate(markdown: String, source: String, namespace: String) throws -> String? {
        let lines = markdown.components(separatedBy: "\n")
        var snippets: [Snippet] = []
        var hiddenDeclarations: [String] = []
        var parameters = ""
        var index = 0
        while index < lines.count {
            let line = lines[index]
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("<!-- snippet-") {
                var comment = trimmed
                while !comment.hasSuffix("-->") {
                    index += 1
                    guard index < lines.count else { throw Failure(description: "\(source):\(index): unclosed snippet comment") }
                    comment += "\n" + lines[index]
                }
                let body = String(comment.dropFirst("<!-- ".count).dropLast("-->".count))
                if body.hasPrefix("snippet-context:") {
                    parameters = body.dropFirst("snippet-context:".count).trimmingCharacters(in: .whitespacesAndNewlines)
                } else if body.hasPrefix("snippet-declarations:") {
                    hiddenDeclarations += body.dropFirst("snippet-declarations:".count)
                        .trimmingCharacters(in: .whitespacesAndNewlines).components(separatedBy: "\n")
                } else {
                    throw Failure(description: "\(source):\(index + 1): unknown snippet comment '\(body.prefix(40))'")
                }
            } else if trimmed.hasPrefix("```") {
                let language = trimmed.dropFirst(3).trimmingCharacters(in: .whitespaces)
                let start = index + 1
                index += 1
                var code: [String] = []
                while index < lines.count, lines[index].trimmingCharacters(in: .whitespaces) != "```" {
                    code.append(lines[index])
                    index += 1
                }
                guard index < lines.count else { throw Failure(description: "\(source):\(start): unclosed code block") }
                if language == "swift" { snippets.append(Snippet(line: start + 1, code: code, parameters: parameters)) }
            }
            index += 1
        }
        guard !snippets.isEmpty else { return nil }
        return render(snippets, hiddenDeclarations: hiddenDeclarations, source: source, namespace: namespace)
    }

    /// A snippet split into imports, file-level declarations (with the line each starts on) and statements.
    struct Parts {
        var imports: [String] = []
        var declarations: [(line: Int, code: [String])] = []
        var statements: [(line: Int, code: String)] = []
    }

    static let declarationStarts = ["struct ", "enum ", "class ", "final class ", "actor ", "protocol ", "extension "]

    static func split(_ snippet: Snippet) -> Parts {
        var parts = Parts()
        var index = 0
        while index < snippet.code.count {
            let line = snippet.code[index]
            if line.hasPrefix("import ") {
                parts.imports.append(line.trimmingCharacters(in: .whitespaces))
            } else if declarationStarts.contains(where: line.hasPrefix) {
                // A declaration runs until its braces balance.
                var depth = 0
                var code: [String] = []
                let first = index
                repeat {
                    let current = snippet.code[index]
                    depth += current.filter { $0 == "{" }.count - current.filter { $0 == "}" }.count
                    code.append(current)
                    index += 1
                } while depth > 0 && index < snippet.code.count
                parts.declarations.append((snippet.line + first, code))
                continue
            } else {
                parts.statements.append((snippet.line + index, line))
            }
            index += 1
        }
        return parts
    }

    /// The names a snippet binds at its top level (`let people = …`), which the generated function
    /// uses once so that a value the example only shows being made does not warn.
    static func bindings(_ statements: [(line: Int, code: String)]) -> [(name: String, isVariable: Bool)] {
        statements.compactMap { statement in
            let words = statement.code.split(separator: " ", maxSplits: 2)
            guard words.count >= 2, words[0] == "let" || words[0] == "var" else { return nil }
            let name = words[1].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            return name.isEmpty ? nil : (String(name), words[0] == "var")
        }
    }

    static func render(_ snippets: [Snippet], hiddenDeclarations: [String], source: String, namespace: String) -> String {
        let split = snippets.map(split)
        var declaredTypes: [String] = []
        for parts in split {
            for declaration in parts.declarations {
                let words = declaration.code[0].split(whereSeparator: { " :{<".contains($0) })
                if let keyword = words.firstIndex(where: { ["struct", "enum", "class", "actor", "protocol"].contains($0) }),
                   keyword + 1 < words.count {
                    declaredTypes.append(String(words[keyword + 1]))
                }
            }
        }
        var imports = ["import Foundation", "import StrataClient"]
        for line in split.flatMap(\.imports) where !imports.contains(line) { imports.append(line) }

        var out = """
        // Generated by Scripts/extract-snippets from \(source); edit the markdown, then run the script.
        //
        // Every ```swift block of \(source) as a function, so that `swift test` fails when an example
        // stops compiling. The functions are compiled, never called: they need a running server.
        // The file imports Foundation (which an app has through SwiftUI or UIKit) and StrataClient,
        // nothing else, so an example needs nothing an app that imports StrataClient does not have.

        \(imports.joined(separator: "\n"))

        """
        out += "\nenum \(namespace) {\n"
        for line in hiddenDeclarations where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            out += "    \(line)\n"
        }
        var extensions: [(line: Int, code: [String])] = []
        for parts in split {
            for declaration in parts.declarations {
                if declaration.code[0].hasPrefix("extension ") {
                    extensions.append(declaration)
                    continue
                }
                out += "#sourceLocation(file: \"\(source)\", line: \(declaration.line))\n"
                for line in declaration.code { out += "    \(line)\n" }
                out += "#sourceLocation()\n"
            }
        }
        for (snippet, parts) in zip(snippets, split) {
            out += "\n    static func snippetAtLine\(snippet.line)(\(snippet.parameters)) async throws {\n"
            if let first = parts.statements.first {
                out += "#sourceLocation(file: \"\(source)\", line: \(first.line))\n"
                var expected = first.line
                for statement in parts.statements {
                    // Lines moved out to file level would shift the rest; blank lines keep the numbers.
                    while expected < statement.line {
                        out += "\n"
                        expected += 1
                    }
                    out += statement.code.isEmpty ? "\n" : "        \(statement.code)\n"
                    expected += 1
                }
                out += "#sourceLocation()\n"
            }
            for binding in bindings(parts.statements) {
                out += "        use(\(binding.isVariable ? "&" : "")\(binding.name))\n"
            }
            out += "    }\n"
        }
        out += """

            /// Marks a value an example makes but does not go on to use.
            private static func use<T>(_ value: T) {}
            /// Marks a variable an example makes but does not go on to change.
            private static func use<T>(_ value: inout T) {}
        }

        """
        for declaration in extensions {
            // An extension of a type the article declares names it inside the namespace.
            var first = declaration.code[0]
            let extended = first.dropFirst("extension ".count).prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            if declaredTypes.contains(String(extended)) {
                first = "extension \(namespace).\(first.dropFirst("extension ".count))"
            }
            out += "\n#sourceLocation(file: \"\(source)\", line: \(declaration.line))\n"
            out += ([first] + declaration.code.dropFirst()).joined(separator: "\n") + "\n"
            out += "#sourceLocation()\n"
        }
        return out
    }
}
