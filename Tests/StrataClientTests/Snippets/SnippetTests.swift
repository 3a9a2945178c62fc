import Foundation
import Testing

/// The generated snippet files must be what the markdown says today: editing an example without
/// regenerating fails here, and an example that does not compile fails the build.
@Suite("Documentation snippets")
struct SnippetTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("Every ```swift block of the README and the DocC articles is in a generated file, as written")
    func generatedFilesMatchTheMarkdown() throws {
        let expected = try SnippetExtractor.generate(packageRoot: Self.packageRoot)
        #expect(expected.keys.contains("GettingStartedSnippets.swift") && expected.keys.contains("ReadmeSnippets.swift"))
        let directory = Self.packageRoot.appendingPathComponent(SnippetExtractor.outputDirectory)
        let present = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix("Snippets.swift") }
        let advice = "run Scripts/extract-snippets to regenerate Tests/StrataClientTests/Snippets from the markdown"
        #expect(Set(present) == Set(expected.keys), "generated snippet files differ from the markdown files with ```swift blocks: \(advice)")
        for (name, text) in expected.sorted(by: { $0.key < $1.key }) {
            let onDisk = (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? ""
            let upToDate = onDisk == text
            #expect(upToDate, "\(name) differs from the markdown \(Self.firstDifference(onDisk, text)): \(advice)")
        }
    }

    /// Where two texts first differ, so that the message points at the example that changed.
    static func firstDifference(_ old: String, _ new: String) -> String {
        let oldLines = old.components(separatedBy: "\n"), newLines = new.components(separatedBy: "\n")
        for (number, (was, now)) in zip(oldLines, newLines).enumerated() where was != now {
            return "from line \(number + 1): '\(was.trimmingCharacters(in: .whitespaces))' is now '\(now.trimmingCharacters(in: .whitespaces))'"
        }
        return "in length (\(oldLines.count) lines, now \(newLines.count))"
    }

    @Test("Shell blocks are left out, context becomes parameters, declarations move to file level")
    func extraction() throws {
        let markdown = """
        ```sh
        swift run strata serve --demo
        ```
        <!-- snippet-context: service: DataService -->
        ```swift
        import StrataClient
        struct Person: Decodable { var name: String }
        extension Person {
            static let name = Field<String>("name")
        }
        let people = try await service.set("Person").all(as: Person.self)
        ```
        """
        let text = try #require(try SnippetExtractor.generate(markdown: markdown, source: "A.md", namespace: "ASnippets"))
        #expect(!text.contains("strata serve"))
        #expect(text.contains("static func snippetAtLine6(service: DataService) async throws {"))
        #expect(text.contains("extension ASnippets.Person {"))
        #expect(text.contains("#sourceLocation(file: \"A.md\", line: 11)"))
        #expect(text.contains("use(people)"))
        #expect(try SnippetExtractor.generate(markdown: "```sh\nls\n```\n", source: "B.md", namespace: "B") == nil)
        #expect(throws: SnippetExtractor.Failure.self) {
            try SnippetExtractor.generate(markdown: "```swift\nlet x = 1\n", source: "C.md", namespace: "C")
        }
    }
}
