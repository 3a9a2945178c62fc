import Foundation

extension ODataJSON {
    /// Writes a value as OData V4 JSON writes it: dates and times in ISO 8601 (`Edm.DateTime`
    /// becomes `Edm.DateTimeOffset` in UTC, `Edm.Time` `Edm.TimeOfDay`), binary in base64url, and
    /// Int64 and Decimal as numbers — or as strings when the client asked for
    /// `IEEE754Compatible=true`, because a JavaScript number cannot hold every one of them.
    public static func writeV4(_ value: ODataValue, ieee754Compatible: Bool, to writer: inout JSONWriter) {
        switch value {
        case .int64(let v):
            if ieee754Compatible { writer.rawString(String(v)) } else { writer.raw(String(v)) }
        case .decimal(let v):
            writeDecimalV4(v.description, ieee754Compatible: ieee754Compatible, to: &writer)
        case .dateTime(let d): writer.rawString(d.isoString + "Z")
        case .time(let t): writer.rawString(t.clockString)
        case .binary(let data): writer.rawString(Base64URL.encode(Array(data)))
        default: write(value, to: &writer)
        }
    }

    /// A decimal's digits (`35.00` when the column declares a scale), as a number or as a string.
    public static func writeDecimalV4(_ text: String, ieee754Compatible: Bool, to writer: inout JSONWriter) {
        if ieee754Compatible { writer.rawString(text) } else { writer.raw(text) }
    }
}

extension EDMPrimitiveType {
    /// The type's name in CSDL 4.0: V2's `Edm.DateTime` is `Edm.DateTimeOffset` there and
    /// `Edm.Time` (a time of day in the databases Strata serves) is `Edm.TimeOfDay`.
    public var v4Name: String {
        switch self {
        case .dateTime: return EDMPrimitiveType.dateTimeOffset.rawValue
        case .time: return "Edm.TimeOfDay"
        default: return rawValue
        }
    }
}

extension EDMPrimitiveType {
    /// The type a CSDL 4.0 primitive type name reads as: the V2 name where both versions have it,
    /// `Edm.Date` as ``dateTime`` (at midnight), `Edm.TimeOfDay` and `Edm.Duration` as ``time``
    /// (V2's `Edm.Time` is a duration; durations of a day or more do not fit it). Nil for the types
    /// with no counterpart: `Edm.Stream`, the geography and geometry types, and any name outside `Edm`.
    public init?(v4Name name: String) {
        switch name {
        case "Edm.Date": self = .dateTime
        case "Edm.TimeOfDay", "Edm.Duration": self = .time
        default:
            guard let type = EDMPrimitiveType(rawValue: name) else { return nil }
            self = type
        }
    }
}
