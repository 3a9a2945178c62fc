import Foundation
import StrataCore
@testable import StrataServer
import Testing

/// Base64url over bytes (ETags, tokens, JWT parts) agrees with Foundation's base64, and ETags keep
/// their value: a tag computed independently (SHA-256 of the canonical encoding, in Python) matches.
@Suite("Base64url and entity tags")
struct Base64URLTests {
    static func foundation(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test("Encoding matches Foundation's base64 made url-safe, and decoding reverses it, for 0 to 64 bytes")
    func roundTrip() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...64 {
            for _ in 0..<8 {
                let bytes = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
                let text = Base64URL.encode(bytes)
                #expect(text == Self.foundation(bytes))
                #expect(Base64URL.decode(text) == bytes)
            }
        }
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
    }

    @Test("Decoding refuses padding, characters outside the url-safe alphabet and impossible lengths")
    func refusals() {
        #expect(Base64URL.decode("QQ==") == nil)
        #expect(Base64URL.decode("a+b/") == nil)
        #expect(Base64URL.decode("abcde") == nil)
        #expect(Base64URL.decode("ab c") == nil)
        #expect(Base64URL.decode("") == [])
        #expect(UnverifiedToken.base64URLDecode("eyJhIjoxfQ") == Data(#"{"a":1}"#.utf8))
    }

    @Test("An entity tag keeps its value: SHA-256 of the canonical encoding, first 16 bytes, base64url")
    func entityTagValue() {
        let properties = [
            EntityProperty(name: "personID", type: .int32, isNullable: false),
            EntityProperty(name: "firstName", type: .string, isNullable: false),
            EntityProperty(name: "ssn", type: .string),
            EntityProperty(name: "createDate", type: .dateTime, isNullable: false),
        ]
        let values: [ODataValue] = [.int32(50000), .string("Zoë"), .null,
                                    .dateTime(ODataDateTime(millisecondsSince1970: 1_305_675_580_149))]
        // Computed outside Swift: hashlib.sha256(b"\x01" + Σ len32(name) name len32(kind+text) kind+text).
        #expect(EntityTag(properties: properties, values: values).opaque == "P0mJeBAEprIknKXcM0Pb0Q")
    }

    @Test("Quoting a catalog identifier doubles embedded quotes only")
    func quoting() {
        #expect(SQLDialect.sqlite.quote("Person") == #""Person""#)
        #expect(SQLDialect.postgres.quote(#"odd"name"#) == #""odd""name""#)
    }
}
