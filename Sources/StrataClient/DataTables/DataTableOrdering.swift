import Foundation
import StrataCore

/// The order data tables sort values in: null first, then by value within a kind; numbers of
/// different EDM types compare by value, so an Int32 field and an Int64 parameter sort together.
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
