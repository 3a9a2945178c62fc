import Foundation

/// One OData primitive value, typed as the Entity Data Model types it.
///
/// The same enum carries key values in URLs, property values in JSON payloads, filter literals,
/// and values bound to SQL statements on the server.
public enum ODataValue: Sendable, Hashable {
    case null
    case boolean(Bool)
    case byte(UInt8)
    case sbyte(Int8)
    case int16(Int16)
    case int32(Int32)
    case int64(Int64)
    case decimal(Decimal)
    case double(Double)
    case single(Float)
    case string(String)
    case dateTime(ODataDateTime)
    case dateTimeOffset(ODataDateTimeOffset)
    case time(ODataTime)
    case guid(UUID)
    case binary(Data)

    /// The EDM type of the value, nil for `null` (which has every type).
    public var type: EDMPrimitiveType? {
        switch self {
        case .null: return nil
        case .boolean: return .boolean
        case .byte: return .byte
        case .sbyte: return .sbyte
        case .int16: return .int16
        case .int32: return .int32
        case .int64: return .int64
        case .decimal: return .decimal
        case .double: return .double
        case .single: return .single
        case .string: return .string
        case .dateTime: return .dateTime
        case .dateTimeOffset: return .dateTimeOffset
        case .time: return .time
        case .guid: return .guid
        case .binary: return .binary
        }
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The value as a 64-bit integer when it is an integral type.
    public var integerValue: Int64? {
        switch self {
        case .byte(let v): return Int64(v)
        case .sbyte(let v): return Int64(v)
        case .int16(let v): return Int64(v)
        case .int32(let v): return Int64(v)
        case .int64(let v): return v
        default: return nil
        }
    }

    /// The value as a Double when it is numeric.
    public var doubleValue: Double? {
        switch self {
        case .double(let v): return v
        case .single(let v): return Double(v)
        case .decimal(let v): return NSDecimalNumber(decimal: v).doubleValue
        default: return integerValue.map(Double.init)
        }
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }
}

extension ODataValue: CustomStringConvertible {
    /// The value as an OData URI literal, for example `'O''Brien'` or `datetime'2009-11-01T00:00:00'`.
    public var description: String { ODataLiteral.format(self) }
}
