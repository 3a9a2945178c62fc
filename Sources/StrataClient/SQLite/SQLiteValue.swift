import Foundation
import StrataCore

/// A value as SQLite stores it (its five storage classes), and how each OData value is stored.
///
/// Every value reads back as the same ``ODataValue`` it was stored as — the replica compares
/// stored values with the server's to find what changed, so nothing may be rounded or reformatted:
///
/// | EDM type | stored as |
/// |---|---|
/// | Boolean | integer 0 or 1 |
/// | Byte, SByte, Int16, Int32, Int64 | integer |
/// | Single, Double | real (a Single converts to a Double and back exactly) |
/// | Decimal | text (`12.50` keeps its digits; a real would round past 15) |
/// | String | text |
/// | DateTime | ISO 8601 text, `2009-11-01T09:30:00.000`: sorts like the instants |
/// | DateTimeOffset | ISO 8601 text with its offset |
/// | Time | clock text, `13:20:05.5` |
/// | Guid | text, lower case |
/// | Binary | blob |
enum SQLiteValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// How `value` is stored.
    init(_ value: ODataValue) {
        switch value {
        case .null: self = .null
        case .boolean(let bool): self = .integer(bool ? 1 : 0)
        case .byte(let byte): self = .integer(Int64(byte))
        case .sbyte(let sbyte): self = .integer(Int64(sbyte))
        case .int16(let int): self = .integer(Int64(int))
        case .int32(let int): self = .integer(Int64(int))
        case .int64(let int): self = .integer(int)
        case .decimal(let decimal): self = .text("\(decimal)")
        case .double(let double): self = .real(double)
        case .single(let single): self = .real(Double(single))
        case .string(let string): self = .text(string)
        case .dateTime(let dateTime): self = .text(dateTime.formatted(dateTimeSeparator: "T", alwaysFraction: true))
        case .dateTimeOffset(let offset): self = .text(offset.isoString)
        case .time(let time): self = .text(time.clockString)
        case .guid(let guid): self = .text(guid.uuidString.lowercased())
        case .binary(let data): self = .blob(data)
        }
    }

    /// The value of a column of type `type`; nil when what is stored cannot be one (a foreign file,
    /// or SQL that wrote another kind of value).
    func odataValue(as type: EDMPrimitiveType) -> ODataValue? {
        switch (self, type) {
        case (.null, _): return .null
        case (.integer(let int), .boolean): return .boolean(int != 0)
        case (.integer(let int), .byte): return UInt8(exactly: int).map(ODataValue.byte)
        case (.integer(let int), .sbyte): return Int8(exactly: int).map(ODataValue.sbyte)
        case (.integer(let int), .int16): return Int16(exactly: int).map(ODataValue.int16)
        case (.integer(let int), .int32): return Int32(exactly: int).map(ODataValue.int32)
        case (.integer(let int), .int64): return .int64(int)
        case (.integer(let int), .double): return .double(Double(int))
        case (.integer(let int), .single): return .single(Float(int))
        case (.integer(let int), .decimal): return .decimal(Decimal(int))
        case (.real(let real), .double): return .double(real)
        case (.real(let real), .single): return .single(Float(real))
        case (.real(let real), .decimal): return .decimal(Decimal(real))
        case (.text(let text), .decimal): return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map(ODataValue.decimal)
        case (.text(let text), .string): return .string(text)
        case (.text(let text), .dateTime): return ODataDateTime.parse(text).map(ODataValue.dateTime)
        case (.text(let text), .dateTimeOffset): return ODataDateTimeOffset.parse(text).map(ODataValue.dateTimeOffset)
        case (.text(let text), .time): return ODataTime.parse(text).map(ODataValue.time)
        case (.text(let text), .guid): return UUID(uuidString: text).map(ODataValue.guid)
        case (.blob(let data), .binary): return .binary(data)
        default: return nil
        }
    }

    /// The value of an expression column, whose type SQLite alone knows.
    var odataValue: ODataValue {
        switch self {
        case .null: .null
        case .integer(let int): .int64(int)
        case .real(let real): .double(real)
        case .text(let text): .string(text)
        case .blob(let data): .binary(data)
        }
    }

    var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let int): "the integer \(int)"
        case .real(let real): "the real \(real)"
        case .text(let text): "the text '\(text.prefix(40))'"
        case .blob(let data): "a blob of \(data.count) bytes"
        }
    }
}

/// The SQL type a column of an EDM type is declared with. Each name gives the affinity that keeps
/// the stored value as ``SQLiteValue`` wrote it (INTEGER, REAL, TEXT or BLOB; Boolean NUMERIC), and
/// is distinct, so a query's result column that is a table column maps back to its EDM type
/// (`sqlite3_column_decltype`).
enum SQLiteColumnType {
    static func declared(_ type: EDMPrimitiveType) -> String {
        switch type {
        case .binary: "BLOB"
        case .boolean: "BOOLEAN"
        case .byte: "UNSIGNED TINYINT"
        case .sbyte: "TINYINT"
        case .int16: "SMALLINT"
        case .int32: "INTEGER"
        case .int64: "BIGINT"
        case .single: "FLOAT"
        case .double: "DOUBLE"
        case .decimal: "DECIMAL TEXT"
        case .string: "TEXT"
        case .dateTime: "DATETIME TEXT"
        case .dateTimeOffset: "DATETIMEOFFSET TEXT"
        case .time: "TIME TEXT"
        case .guid: "GUID TEXT"
        }
    }

    /// The EDM type of a column declared by ``declared(_:)``; nil for any other declaration.
    static func edmType(declared: String) -> EDMPrimitiveType? {
        EDMPrimitiveType.allCases.first { Self.declared($0) == declared.uppercased() }
    }
}
