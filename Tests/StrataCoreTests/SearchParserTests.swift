@testable import StrataCore
import Testing

/// V4's `$search` (issue 38): words, phrases, AND/OR/NOT where they are operators and words where
/// they are not, precedence, the incomplete form, and refusals with a column.
@Suite struct SearchParserTests {
    static func search(_ value: String) throws(ODataError) -> SearchExpression? {
        try QueryOptions(parsing: "$search=" + value, limits: .default, version: .v4).search
    }

    @Test func termsOperatorsAndPrecedence() throws {
        let cases: [(String, SearchExpression)] = [
            ("blue", .term("blue")),
            ("Daniel's", .term("Daniel's")),
            ("08/15", .term("08/15")),
            ("%CE%94", .term("Δ")),
            ("more%26more", .term("more&more")),
            ("%22blue%20green%22", .term("blue green")),
            ("blue green", .and(.term("blue"), .term("green"))),
            ("blue AND green", .and(.term("blue"), .term("green"))),
            ("blue OR green", .or(.term("blue"), .term("green"))),
            ("blue NOT green", .and(.term("blue"), .not(.term("green")))),
            ("NOT (blue green)", .not(.and(.term("blue"), .term("green")))),
            ("a OR b c", .or(.term("a"), .and(.term("b"), .term("c")))),
            ("(a OR b) c", .and(.or(.term("a"), .term("b")), .term("c"))),
            // Operators' names where no operator can stand are words.
            ("NOT", .term("NOT")),
            ("AND", .term("AND")),
            ("NOT NOT", .not(.term("NOT"))),
            ("AND OR", .and(.term("AND"), .term("OR"))),
            ("AND OR NOT", .or(.term("AND"), .term("NOT"))),
            ("blue AND", .and(.term("blue"), .term("AND"))),
            // OData 4.01's incomplete expression: the text in single quotes is one phrase.
            ("'%22blue'", .term("blue")),
            ("'it''s'", .term("it's")),
        ]
        for (value, expected) in cases {
            #expect(try Self.search(value) == expected, "\(value)")
        }
    }

    @Test func theQueryStringPrintsWhatParsesBackToTheSame() throws {
        for value in ["blue", "%22blue%20green%22", "a OR b c", "(a OR b) c", "NOT (a b)", "AND OR NOT", "NOT NOT", "'%22'"] {
            let parsed = try QueryOptions(parsing: "$search=" + value, limits: .default, version: .v4)
            let again = try QueryOptions(parsing: parsed.queryString(version: .v4), limits: .default, version: .v4)
            #expect(again.search == parsed.search, "\(value) → \(parsed.queryString(version: .v4))")
        }
    }

    @Test func refusalsSayWhatAndWhere() {
        let cases: [(String, String)] = [
            ("", "$search is empty"),
            ("%22blue", "no closing '\"' at column 1"),
            ("blue%22green%22", "'\"' inside a word at column 5"),
            ("%22blue%22green", "a phrase must be followed by a space"),
            ("(blue", "expected ')' to close the '(' at column 1"),
            ("blue)", "expected AND, OR or the end of $search, found ')' at column 5"),
            ("()", "expected a word, a \"phrase\" or '(', found ')' at column 2"),
            ("'blue", "a word cannot start with '"),
            ("%22%22", "the phrase \"\" is empty"),
            (String(repeating: "(", count: 200) + "a" + String(repeating: ")", count: 200), "nest more than"),
            (String(repeating: "NOT ", count: 200) + "a", "nest more than"),
        ]
        for (value, message) in cases {
            #expect(throws: ODataError.self, "\(value)") { try Self.search(value) }
            do {
                _ = try Self.search(value)
            } catch {
                #expect(error.message.contains(message), "\(value): \(error.message)")
                #expect(error.status == 400)
            }
        }
    }

    @Test func v2DoesNotKnowSearch() {
        do {
            _ = try QueryOptions(parsing: "$search=blue", limits: .default, version: .v2)
            Issue.record("V2 accepted $search")
        } catch {
            #expect(error.message.contains("OData-MaxVersion: 4.0"), "\(error.message)")
        }
    }
}
