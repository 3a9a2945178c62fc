/// The primitive types of the Entity Data Model that OData V2 defines.
///
/// Every column of a catalog table maps to one of these; values travel as ``ODataValue``.
public enum EDMPrimitiveType: String, Sendable, Hashable, CaseIterable {
    case binary = "Edm.Binary"
    case boolean = "Edm.Boolean"
    case byte = "Edm.Byte"
    case dateTime = "Edm.DateTime"
    case dateTimeOffset = "Edm.DateTimeOffset"
    case decimal = "Edm.Decimal"
    case double = "Edm.Double"
    case guid = "Edm.Guid"
    case int16 = "Edm.Int16"
    case int32 = "Edm.Int32"
    case int64 = "Edm.Int64"
    case sbyte = "Edm.SByte"
    case single = "Edm.Single"
    case string = "Edm.String"
    case time = "Edm.Time"

    /// The qualified name as it appears in `$metadata`, for example `Edm.Int32`.
    public var qualifiedName: String { rawValue }

    /// Creates a type from its qualified (`Edm.Int32`) or short (`Int32`) name, ignoring case.
    public init?(name: String) {
        let lowered = name.lowercased()
        let short = lowered.hasPrefix("edm.") ? String(lowered.dropFirst(4)) : lowered
        guard let match = Self.allCases.first(where: { $0.rawValue.dropFirst(4).lowercased() == short }) else {
            return nil
        }
        self = match
    }

    /// Integer types, ordered narrowest first; used for numeric promotion.
    public var isIntegral: Bool {
        switch self {
        case .byte, .sbyte, .int16, .int32, .int64: return true
        default: return false
        }
    }

    /// Integer, decimal and floating point types.
    public var isNumeric: Bool {
        isIntegral || self == .decimal || self == .double || self == .single
    }

    /// Types that OData allows as entity keys.
    public var canBeKey: Bool {
        switch self {
        case .double, .single, .dateTimeOffset, .time: return false
        default: return true
        }
    }

    /// The rank used to find the common type of two numeric operands (OData's binary numeric promotion).
    var numericRank: Int {
        switch self {
        case .byte, .sbyte: return 1
        case .int16: return 2
        case .int32: return 3
        case .int64: return 4
        case .decimal: return 5
        case .single: return 6
        case .double: return 7
        default: return 0
        }
    }

    /// The type both numeric operands are promoted to, or nil when one is not numeric.
    public static func promoted(_ lhs: EDMPrimitiveType, _ rhs: EDMPrimitiveType) -> EDMPrimitiveType? {
        guard lhs.isNumeric, rhs.isNumeric else { return nil }
        if lhs == rhs { return lhs }
        // Byte and SByte have no common 8-bit type; they meet at Int16.
        if lhs.numericRank == 1 && rhs.numericRank == 1 { return .int16 }
        return lhs.numericRank >= rhs.numericRank ? lhs : rhs
    }
}
