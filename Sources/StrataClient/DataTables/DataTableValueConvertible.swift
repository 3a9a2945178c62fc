import Foundation
import StrataCore

/// A Swift value that can be stored in a data table field: it says which EDM types it fits, and
/// how to read it back out of a field.
///
/// Assignments are strict: an `Int` fits the integer types (when in range), `Decimal`, `Double`
/// and `Single`; a `String` fits only `Edm.String`; a `Date` fits `Edm.DateTime` and
/// `Edm.DateTimeOffset`. Anything else is refused with a ``DataTableError`` of kind
/// ``DataTableError/Kind/typeMismatch``.
public protocol DataTableValueConvertible: Sendable {
    /// The value as `type`, or nil when it does not fit that type.
    func dataTableValue(as type: EDMPrimitiveType) -> ODataValue?
    /// Reads a field value as this Swift type; nil when it is null or of another kind.
    init?(dataTableValue: ODataValue)
}

extension ODataValue: DataTableValueConvertible {
    public func dataTableValue(as type: EDMPrimitiveType) -> ODataValue? {
        converted(to: type)
    }

    public init?(dataTableValue: ODataValue) {
        self = dataTableValue
    }
}

extension String: DataTableValueConvertible {
    public func dataTableValue(as type: EDMPrimitiveType) -> ODataValue? {
        type == .string ? .string(self) : nil
    }

    public init?(dataTableValue: ODataValue) {
        guard case .string(let text) = dataTableValue else { return nil }
        self = text
    }
}

extension Bool: DataTableValueConvertible {
    public func dataTableValue(as type: EDMPrimitiveType) -> ODataValue? {
        type == .boolean ? .boolean(self) : nil
    }

    public init?(dataTableValue: ODataValue) {
        guard case .boolean(let flag) = dataTableValue else { return nil }
        self = flag
    }
}

/// Integers convert through Int64 with OData's range checks.
public protocol DataTableIntegerValue: DataTableValueConvertible, BinaryInteger {}

extension DataTableIntegerValue {
    public func dataTableValue(as type: EDMPrimitiveType) -> ODataValue? {
        guard let wide = Int64(exactly: self) else { return nil }
        return ODataValue.int64(wide).converted(to: type)
    }

    public init?(dataTableValue: ODataValue) {
        guard let wide = dataTableValue.integerValue, let value = Self(exactly: wide) else { return nil }
        self = value
    }
}

extension Int: DataTableIntegerValue {}
extension Int8: DataTableIntegerValue {}
extension Int16: DataTableIntegerValue {}
extension Int32: DataTableIntegerValue {}
extension Int64: DataTableIntegerValue {}
extension UInt8: DataTableIntegerValue {}

extension Double: DataTableValueConvertible {
    public func dataTableValue(as type: EDMPrimitiveType) -> ODataValue? {
        switch type {
        case .double: return .double(self)
        case .single, .decimal: return ODataValue.double(self).converted(to: type)
        default: return nil
        }
    }

    public init?(dataTableValue: ODataValue) {
        guard dataTableValue.type?.isNumeric == true, let value = dataTableValue.doubleValue else { return nil }
        self = value
    }
}

extension Decimal: DataTableValueConvertible {
    public func dataTableValue(as type: EDMPrimitiveType) -> ODataValue? {
        ODataValue.decimal(self).converted(to: type)
    }

    public init?(dataTableValue: ODataValue) {
        switch dataTableValue {
        case .decimal(let value): self = value
        default:
            guard let wide = dataTableValue.integerValue else { return nil }
            self = Decimal(wide)
        }
    }
}

extension Date: DataTableValueConvertible {
    public func dataTableValue(as type: EDMPrimitiveType) -> ODataValue? {
        switch type {
        case .dateTime: return .dateTime(ODataDateTime(self))
        case .dateTimeOffset: return .dateTimeOffset(ODataDateTimeOffset(utc: ODataDateTime(self)))
        default: return nil
        }
    }

    public init?(dataTableValue: ODataValue) {
        switch dataTableValue {
        case .dateTime(let value): self = value.date
        case .dateTimeOffset(let value): self = value.utc.date
        default: return nil
        }
    }
}

extension UUID: DataTableValueConvertible {
    public func dataTableValue(as type: EDMPrimitiveType) -> ODataValue? {
        type == .guid ? .guid(self) : nil
    }

    public init?(dataTableValue: ODataValue) {
        guard case .guid(let value) = dataTableValue else { return nil }
        self = value
    }
}

extension Data: DataTableValueConvertible {
    public func dataTableValue(as type: EDMPrimitiveType) -> ODataValue? {
        type == .binary ? .binary(self) : nil
    }

    public init?(dataTableValue: ODataValue) {
        guard case .binary(let value) = dataTableValue else { return nil }
        self = value
    }
}

/// The order data tables sort values in: null first, then by value within a kind; numbers of
/// different EDM types compare by value.
enum DataTableOrdering {
    static func ascending(_ a: ODataValue, _ b: ODataValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return false
        case (.null, _): return true
        case (_, .null): return false
        case let (.string(x), .string(y)): return x < y
        case let (.boolean(x), .boolean(y)): return !x && y
        case let (.dateTime(x), .dateTime(y)): return x < y
        case let (.dateTimeOffset(x), .dateTimeOffset(y)): return x.utc < y.utc
        case let (.time(x), .time(y)): return x < y
        case let (.guid(x), .guid(y)): return x.uuidString < y.uuidString
        case let (.binary(x), .binary(y)): return x.lexicographicallyPrecedes(y)
        case let (.decimal(x), .decimal(y)): return x < y
        default:
            if let x = a.integerValue, let y = b.integerValue { return x < y }
            if let x = a.doubleValue, let y = b.doubleValue { return x < y }
            return String(describing: a) < String(describing: b)
        }
    }
}
