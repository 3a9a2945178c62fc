import Foundation
import StrataCore

/// A Swift value that has an OData primitive form, so it can be a key (`set("Person").key(1)`) or a
/// filter operand (`Person.lastName == "Samson"`).
///
/// Integers that fit become `Edm.Int32` (as unsuffixed literals in a URL are), larger ones `Edm.Int64`;
/// `Date` becomes `Edm.DateTime`; `nil` becomes `null`.
public protocol ODataValueConvertible: Sendable {
    /// The value as OData sees it.
    var odataValue: ODataValue { get }
}

extension ODataValue: ODataValueConvertible {
    public var odataValue: ODataValue { self }
}

extension String: ODataValueConvertible {
    public var odataValue: ODataValue { .string(self) }
}

extension Bool: ODataValueConvertible {
    public var odataValue: ODataValue { .boolean(self) }
}

extension Int: ODataValueConvertible {
    public var odataValue: ODataValue { Int32(exactly: self).map(ODataValue.int32) ?? .int64(Int64(self)) }
}

extension Int64: ODataValueConvertible {
    public var odataValue: ODataValue { .int64(self) }
}

extension Int32: ODataValueConvertible {
    public var odataValue: ODataValue { .int32(self) }
}

extension Int16: ODataValueConvertible {
    public var odataValue: ODataValue { .int16(self) }
}

extension UInt8: ODataValueConvertible {
    public var odataValue: ODataValue { .byte(self) }
}

extension Int8: ODataValueConvertible {
    public var odataValue: ODataValue { .sbyte(self) }
}

extension Double: ODataValueConvertible {
    public var odataValue: ODataValue { .double(self) }
}

extension Float: ODataValueConvertible {
    public var odataValue: ODataValue { .single(self) }
}

extension Decimal: ODataValueConvertible {
    public var odataValue: ODataValue { .decimal(self) }
}

extension UUID: ODataValueConvertible {
    public var odataValue: ODataValue { .guid(self) }
}

extension Data: ODataValueConvertible {
    public var odataValue: ODataValue { .binary(self) }
}

extension Date: ODataValueConvertible {
    public var odataValue: ODataValue { .dateTime(ODataDateTime(self)) }
}

extension ODataDateTime: ODataValueConvertible {
    public var odataValue: ODataValue { .dateTime(self) }
}

extension ODataDateTimeOffset: ODataValueConvertible {
    public var odataValue: ODataValue { .dateTimeOffset(self) }
}

extension ODataTime: ODataValueConvertible {
    public var odataValue: ODataValue { .time(self) }
}

extension Optional: ODataValueConvertible where Wrapped: ODataValueConvertible {
    public var odataValue: ODataValue { self?.odataValue ?? .null }
}
