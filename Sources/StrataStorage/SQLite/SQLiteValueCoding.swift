import Foundation
import StrataCore
import StrataSQL

/// How OData values are stored in SQLite columns, and read back.
///
/// SQLite is dynamically typed, so the declared column type decides how a stored value is read:
/// timestamps are text `YYYY-MM-DD HH:MM:SS.SSS` (SQLite's own convention, so its date functions
/// work and text order is time order), booleans are 0/1, GUIDs lowercase text. Dates in a column
/// that stores them in another form are converted to that form before they get here
/// (``DateStorageForm/stored(_:column:table:)``), and every form SQLite reads is read back.
enum SQLiteValueCoding {
    static func encode(_ value: ODataValue) -> SQLiteValue {
        switch value {
        case .null: return .null
        case .boolean(let b): return .integer(b ? 1 : 0)
        case .byte(let v): return .integer(Int64(v))
        case .sbyte(let v): return .integer(Int64(v))
        case .int16(let v): return .integer(Int64(v))
        case .int32(let v): return .integer(Int64(v))
        case .int64(let v): return .integer(Int64(v))
        case .decimal(let d):
            // A double keeps SQLite's numeric comparisons working; when it would lose digits, the
            // exact text is stored instead (NUMERIC affinity still compares it as a number).
            if let double = Double(d.description), Decimal(string: String(double)) == d { return .float(double) }
            return .text(d.description)
        case .double(let v): return .float(v)
        case .single(let v): return .float(Double(v))
        case .string(let s): return .text(s)
        case .dateTime(let d): return .text(storedText(d))
        case .dateTimeOffset(let d): return .text(d.isoString)
        case .time(let t): return .text(t.clockString)
        case .guid(let g): return .text(g.uuidString.lowercased())
        case .binary(let data): return .blob(data)
        }
    }

    /// The stored text of a timestamp; always with at least millisecond digits, like SQLite's `%f`.
    static func storedText(_ d: ODataDateTime) -> String {
        d.formatted(dateTimeSeparator: " ", alwaysFraction: true)
    }

    static func decode(_ data: SQLiteValue, as type: EDMPrimitiveType?, column: String) throws -> ODataValue {
        if case .null = data { return .null }
        guard let type else { return natural(data) }
        func invalid() -> StorageError {
            StorageError.failed("column \(column) holds \(data) which cannot be read as \(type.rawValue)")
        }
        switch type {
        case .boolean:
            switch data {
            case .integer(let i): return .boolean(i != 0)
            case .float(let f): return .boolean(f != 0)
            case .text(let t):
                switch t.lowercased() {
                case "true", "t", "1", "yes": return .boolean(true)
                case "false", "f", "0", "no": return .boolean(false)
                default: throw invalid()
                }
            default: throw invalid()
            }
        case .byte, .sbyte, .int16, .int32, .int64:
            let wide: Int64
            switch data {
            case .integer(let i): wide = i
            case .float(let f) where f == f.rounded() && abs(f) < 9.2e18: wide = Int64(f)
            // What SQLite's own arithmetic makes of an integer that left the 64-bit range.
            case .float(let f) where f == f.rounded() && abs(f) < 1e300: throw StorageError.integerOverflow
            case .text(let t): guard let v = Int64(t) else { throw invalid() }; wide = v
            default: throw invalid()
            }
            return narrowed(wide, to: type)
        case .decimal:
            switch data {
            case .integer(let i): return .decimal(Decimal(i))
            case .float(let f):
                guard let decimal = decimal(f) else { throw StorageError.invalidValue("The value of \(column), \(f), is outside the range Edm.Decimal holds.") }
                return .decimal(decimal)
            case .text(let t): guard let d = Decimal(string: t) else { throw invalid() }; return .decimal(d)
            default: throw invalid()
            }
        case .double, .single:
            let v: Double
            switch data {
            case .integer(let i): v = Double(i)
            case .float(let f): v = f
            case .text(let t): guard let d = Double(t) else { throw invalid() }; v = d
            default: throw invalid()
            }
            return type == .single ? .single(Float(v)) : .double(v)
        case .string:
            switch data {
            case .text(let t): return .string(t)
            case .integer(let i): return .string(String(i))
            case .float(let f): return .string(String(f))
            case .blob(let b): return .string(String(decoding: b, as: UTF8.self))
            case .null: return .null
            }
        case .dateTime:
            // Text in any ISO 8601 spelling SQLite's date functions read, a zone applied (UTC
            // results); numbers as SQLite reads them (``DateNumbers``).
            if case .text(let t) = data {
                guard let d = ODataDateTime.parse(t) else { throw invalid() }
                return .dateTime(d)
            }
            guard let d = instant(data) else { throw invalid() }
            return .dateTime(d)
        case .dateTimeOffset:
            if case .text(let t) = data {
                guard let d = ODataDateTimeOffset.parse(t) else { throw invalid() }
                return .dateTimeOffset(d)
            }
            guard let d = instant(data) else { throw invalid() }
            return .dateTimeOffset(ODataDateTimeOffset(utc: d))
        case .time:
            guard case .text(let t) = data, let v = ODataTime.parse(t) else { throw invalid() }
            return .time(v)
        case .guid:
            switch data {
            case .text(let t): guard let g = UUID(uuidString: t) else { throw invalid() }; return .guid(g)
            case .blob(let b) where b.count == 16:
                let bytes = Array(b)
                return .guid(UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                         bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])))
            default: throw invalid()
            }
        case .binary:
            switch data {
            case .blob(let b): return .binary(b)
            case .text(let t): return .binary(Data(t.utf8))
            default: throw invalid()
            }
        }
    }

    /// A stored number as an instant: an INTEGER is Unix time, a REAL a Julian day in SQLite's
    /// Julian range and Unix time beyond it. (A Julian day stored as an INTEGER is read as REAL by
    /// the statement, ``DateStorageForm/read(_:)``.)
    private static func instant(_ data: SQLiteValue) -> ODataDateTime? {
        switch data {
        case .integer(let seconds): return DateNumbers.instant(unixSeconds: seconds)
        case .float(let number): return DateNumbers.instant(number)
        default: return nil
        }
    }

    static func natural(_ data: SQLiteValue) -> ODataValue {
        switch data {
        case .null: return .null
        case .integer(let i): return .int64(i)
        case .float(let f): return .double(f)
        case .text(let t): return .string(t)
        case .blob(let b): return .binary(b)
        }
    }

    /// A floating-point value as a decimal; nil when it is not finite or lies beyond Decimal's range
    /// (about 10^165), where Foundation would trap or answer NaN.
    static func decimal(_ value: Double) -> Decimal? {
        guard value.isFinite else { return nil }
        if let exact = Decimal(string: String(value)) { return exact }
        let converted = Decimal(value)
        return converted.isNaN ? nil : converted
    }

    /// An integer as the column's type; values outside that type's range keep 64 bits rather than wrap.
    static func narrowed(_ wide: Int64, to type: EDMPrimitiveType) -> ODataValue {
        switch type {
        case .byte: if let v = UInt8(exactly: wide) { return .byte(v) }
        case .sbyte: if let v = Int8(exactly: wide) { return .sbyte(v) }
        case .int16: if let v = Int16(exactly: wide) { return .int16(v) }
        case .int32: if let v = Int32(exactly: wide) { return .int32(v) }
        default: break
        }
        return .int64(wide)
    }
}
