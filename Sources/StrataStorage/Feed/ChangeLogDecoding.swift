import Foundation
import StrataCore
import StrataSQL

/// Turns the JSON a trigger logged (`key`, `links`) back into values, column by column, with the
/// catalog's types, so that a key binds back equal in `WHERE column = $1`.
///
/// SQLite: the JSON value becomes the SQLite value it came from (an integer, a real, text; a BLOB
/// was logged as hex) and is decoded as the normal read path decodes that column
/// (``SQLiteValueCoding``), so a date stored in Strata's text form comes back `.dateTime` and binds
/// back to the same text. PostgreSQL: `jsonb_build_object` writes numbers as JSON numbers and
/// everything else in its text form (timestamps in ISO 8601, `bytea` as `\x…`), read as a client's
/// JSON value of that type (``ODataJSON/decode(_:as:)``). A value that does not decode as its
/// column's type (another program stored something else there) keeps its JSON form: `.int64`,
/// `.double`, `.string`, `.boolean`.
struct ChangeLogDecoding: Sendable {
    var dialect: SQLDialect
    /// Table → column → EDM type; a column missing here keeps its JSON form.
    var columnTypes: [String: [String: EDMPrimitiveType]]

    func values(_ text: String?, table: String) -> [String: ODataValue] {
        guard let text, let json = try? JSONValue.parse(text), case .object(let object) = json else { return [:] }
        let types = columnTypes[table] ?? [:]
        var values: [String: ODataValue] = [:]
        for (name, value) in object {
            values[name] = decode(value, as: types[name], column: name)
        }
        return values
    }

    private func decode(_ json: JSONValue, as type: EDMPrimitiveType?, column: String) -> ODataValue {
        guard let type else { return Self.natural(json) }
        switch dialect {
        case .sqlite:
            let stored: SQLiteValue
            switch json {
            case .null: return .null
            case .bool(let b): stored = .integer(b ? 1 : 0)
            case .number(let text): stored = Int64(text).map(SQLiteValue.integer) ?? .float(Double(text) ?? 0)
            case .string(let text):
                if type == .binary, let data = Self.hex(text) { stored = .blob(data) } else { stored = .text(text) }
            default: return Self.natural(json)
            }
            return (try? SQLiteValueCoding.decode(stored, as: type, column: column)) ?? Self.natural(json)
        case .postgres:
            if type == .binary, case .string(let text) = json, text.hasPrefix("\\x"), let data = Self.hex(String(text.dropFirst(2))) {
                return .binary(data)
            }
            return (try? ODataJSON.decode(json, as: type)) ?? Self.natural(json)
        }
    }

    private static func natural(_ json: JSONValue) -> ODataValue {
        switch json {
        case .null: return .null
        case .bool(let b): return .boolean(b)
        case .number(let text): return Int64(text).map(ODataValue.int64) ?? .double(Double(text) ?? 0)
        case .string(let text): return .string(text)
        default:
            var writer = JSONWriter()
            json.write(to: &writer)
            return .string(String(decoding: writer.bytes, as: UTF8.self))
        }
    }

    private static func hex(_ text: String) -> Data? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var data = Data(capacity: digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            data.append(high << 4 | low)
            index += 2
        }
        return data
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
