import Foundation
import NIOCore
import PostgresNIO
import StrataCore

/// How OData values are bound to PostgreSQL parameters and read back from result cells.
///
/// Values are bound with their exact PostgreSQL type (a `timestamp` as `timestamp`, not as text),
/// so comparisons use the column's operators and indexes.
enum PostgresValueCoding {
    /// Microseconds between the Unix epoch and PostgreSQL's epoch (2000-01-01).
    static let epochOffset: Int64 = 946_684_800_000_000

    static func bind(_ values: [ODataValue]) throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .null: bindings.appendNull()
            case .boolean(let b): bindings.append(b)
            case .byte(let v): bindings.append(Int16(v))
            case .sbyte(let v): bindings.append(Int16(v))
            case .int16(let v): bindings.append(v)
            case .int32(let v): bindings.append(v)
            case .int64(let v): bindings.append(v)
            case .decimal(let d): try bindings.append(d)
            case .double(let v): bindings.append(v)
            case .single(let v): bindings.append(v)
            case .string(let s):
                try StorageError.requireNoNUL(s)
                bindings.append(s)
            case .dateTime(let d): bindings.append(PostgresTimestamp(microseconds: d.microsecondsSince1970 - epochOffset, withTimeZone: false))
            case .dateTimeOffset(let d): bindings.append(PostgresTimestamp(microseconds: d.utc.microsecondsSince1970 - epochOffset, withTimeZone: true))
            case .time(let t): bindings.append(PostgresTime(microseconds: t.microseconds))
            case .guid(let g): bindings.append(g)
            // As bytea in binary form: the bytes are copied once, into the message (never hex text).
            case .binary(let data): try bindings.append(data)
            }
        }
        return bindings
    }

    /// Decodes a cell as the requested EDM type, or as its natural type when none is requested.
    static func decode(_ cell: PostgresCell, as type: EDMPrimitiveType?) throws -> ODataValue {
        let value = try natural(cell)
        guard let type, !value.isNull else { return value }
        return try coerce(value, to: type, column: cell.columnName)
    }

    static func natural(_ cell: PostgresCell) throws -> ODataValue {
        guard var bytes = cell.bytes else { return .null }
        func failure() -> StorageError {
            StorageError.failed("cannot decode column \(cell.columnName) of PostgreSQL type \(cell.dataType)")
        }
        guard cell.format == .binary else {
            return .string(bytes.readString(length: bytes.readableBytes) ?? "")
        }
        switch cell.dataType {
        case .bool:
            guard let b = bytes.readInteger(as: UInt8.self) else { throw failure() }
            return .boolean(b != 0)
        case .int2:
            guard let v = bytes.readInteger(as: Int16.self) else { throw failure() }
            return .int16(v)
        case .int4:
            guard let v = bytes.readInteger(as: Int32.self) else { throw failure() }
            return .int32(v)
        case .int8:
            guard let v = bytes.readInteger(as: Int64.self) else { throw failure() }
            return .int64(v)
        case .float4:
            guard let bits = bytes.readInteger(as: UInt32.self) else { throw failure() }
            return .single(Float(bitPattern: bits))
        case .float8:
            guard let bits = bytes.readInteger(as: UInt64.self) else { throw failure() }
            return .double(Double(bitPattern: bits))
        case .numeric:
            // Read here rather than with postgres-nio's Decimal decoding, which traps on a numeric
            // beyond Decimal's range (its `PostgresNumeric.decimal` force-unwraps).
            guard let text = PostgresNumericText.decode(bytes) else { throw failure() }
            guard let decimal = Decimal(string: text) else {
                throw StorageError.invalidValue("The value of \(cell.columnName) is outside the range Edm.Decimal holds (about 38 significant digits, exponents to ±127).")
            }
            return .decimal(decimal)
        case .timestamp:
            guard let v = bytes.readInteger(as: Int64.self) else { throw failure() }
            return .dateTime(ODataDateTime(microsecondsSince1970: v + epochOffset))
        case .timestamptz:
            guard let v = bytes.readInteger(as: Int64.self) else { throw failure() }
            return .dateTimeOffset(ODataDateTimeOffset(utc: ODataDateTime(microsecondsSince1970: v + epochOffset)))
        case .date:
            guard let days = bytes.readInteger(as: Int32.self) else { throw failure() }
            return .dateTime(ODataDateTime(microsecondsSince1970: Int64(days) * 86_400_000_000 + epochOffset))
        case .time:
            guard let v = bytes.readInteger(as: Int64.self), let t = ODataTime(microseconds: v) else { throw failure() }
            return .time(t)
        case .uuid:
            return .guid(try cell.decode(UUID.self))
        case .bytea:
            return .binary(Data(bytes.readableBytesView))
        default:
            // Text-like types (text, varchar, char, name, json, enums) decode as strings.
            if let text = try? cell.decode(String.self) { return .string(text) }
            throw failure()
        }
    }

    /// Converts a decoded value to the EDM type the catalog promised for the column.
    static func coerce(_ value: ODataValue, to type: EDMPrimitiveType, column: String) throws -> ODataValue {
        if value.type == type { return value }
        switch (type, value) {
        case (.byte, _), (.sbyte, _), (.int16, _), (.int32, _), (.int64, _):
            guard let wide = value.integerValue else { break }
            return SQLiteValueCoding.narrowed(wide, to: type)
        case (.decimal, _):
            if let wide = value.integerValue { return .decimal(Decimal(wide)) }
            if let d = value.doubleValue {
                guard let decimal = SQLiteValueCoding.decimal(d) else {
                    throw StorageError.invalidValue("The value of \(column), \(d), is outside the range Edm.Decimal holds.")
                }
                return .decimal(decimal)
            }
        case (.double, _):
            if let d = value.doubleValue { return .double(d) }
        case (.single, _):
            if let d = value.doubleValue { return .single(Float(d)) }
        case (.dateTime, .dateTimeOffset(let d)):
            return .dateTime(d.utc)
        case (.dateTimeOffset, .dateTime(let d)):
            return .dateTimeOffset(ODataDateTimeOffset(utc: d))
        case (.string, _):
            return .string(ODataLiteral.format(value))
        default:
            break
        }
        throw StorageError.failed("column \(column) holds \(value) which cannot be read as \(type.rawValue)")
    }
}

/// A `timestamp` or `timestamptz` parameter in PostgreSQL's binary form (microseconds since 2000).
struct PostgresTimestamp: PostgresDynamicTypeEncodable {
    var microseconds: Int64
    var withTimeZone: Bool

    var psqlType: PostgresDataType { withTimeZone ? .timestamptz : .timestamp }
    var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeInteger(microseconds)
    }
}

/// A `time` parameter in PostgreSQL's binary form (microseconds since midnight).
struct PostgresTime: PostgresNonThrowingEncodable {
    var microseconds: Int64

    static var psqlType: PostgresDataType { .time }
    static var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeInteger(microseconds)
    }
}

/// PostgreSQL's binary `numeric` as decimal text (`-0.00012345e8`): a count of base-10000 digit
/// groups, the weight of the first group, a sign word and a display scale, then the groups.
enum PostgresNumericText {
    static func decode(_ bytes: ByteBuffer) -> String? {
        var buffer = bytes
        guard let count = buffer.readInteger(as: Int16.self), let weight = buffer.readInteger(as: Int16.self),
              let sign = buffer.readInteger(as: UInt16.self), buffer.readInteger(as: UInt16.self) != nil, count >= 0 else { return nil }
        // 0x0000 positive, 0x4000 negative; NaN and the infinities are no Edm.Decimal.
        guard sign == 0 || sign == 0x4000 else { return nil }
        guard count > 0 else { return "0" }
        var mantissa = "0."
        for _ in 0..<count {
            guard let group = buffer.readInteger(as: Int16.self), (0..<10_000).contains(group) else { return nil }
            let digits = String(group)
            mantissa += String(repeating: "0", count: 4 - digits.count) + digits
        }
        return (sign == 0x4000 ? "-" : "") + mantissa + "e" + String(4 * (Int(weight) + 1))
    }
}
