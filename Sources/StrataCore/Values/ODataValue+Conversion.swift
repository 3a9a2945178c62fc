import Foundation

extension ODataValue {
    /// The value as another EDM type when OData allows the conversion without losing information:
    /// integers widen or narrow within range, integers and decimals become decimals or floating point,
    /// DateTime and DateTimeOffset convert through UTC. Nil when the value does not fit the type.
    public func converted(to target: EDMPrimitiveType) -> ODataValue? {
        if isNull { return .null }
        if type == target { return self }
        switch target {
        case .byte, .sbyte, .int16, .int32, .int64:
            guard let wide = integerValue else { return nil }
            switch target {
            case .byte: return UInt8(exactly: wide).map(ODataValue.byte)
            case .sbyte: return Int8(exactly: wide).map(ODataValue.sbyte)
            case .int16: return Int16(exactly: wide).map(ODataValue.int16)
            case .int32: return Int32(exactly: wide).map(ODataValue.int32)
            default: return .int64(wide)
            }
        case .decimal:
            if let wide = integerValue { return .decimal(Decimal(wide)) }
            if case .double(let d) = self, d.isFinite { return Decimal(string: String(d)).map(ODataValue.decimal) }
            if case .single(let f) = self, f.isFinite { return Decimal(string: String(f)).map(ODataValue.decimal) }
            return nil
        case .double:
            if integerValue != nil || type == .decimal || type == .single { return doubleValue.map(ODataValue.double) }
            return nil
        case .single:
            if integerValue != nil || type == .decimal || type == .double { return doubleValue.map { .single(Float($0)) } }
            return nil
        case .dateTime:
            if case .dateTimeOffset(let d) = self { return .dateTime(d.utc) }
            return nil
        case .dateTimeOffset:
            if case .dateTime(let d) = self { return .dateTimeOffset(ODataDateTimeOffset(utc: d)) }
            return nil
        case .boolean, .string, .guid, .binary, .time:
            return nil
        }
    }
}
