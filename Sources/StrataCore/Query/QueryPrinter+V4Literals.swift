import Foundation

extension QueryPrinter {
    /// A value as V4 writes it in a URL: numbers without suffixes (a decimal always with a fraction,
    /// a floating-point number always with an exponent, so that each reads back as its kind), dates
    /// and times and GUIDs without prefixes, binary as `binary'…'` in base64url.
    static func v4Literal(_ value: ODataValue) -> String {
        switch value {
        case .null, .boolean, .string: return ODataLiteral.format(value)
        case .byte(let v): return String(v)
        case .sbyte(let v): return String(v)
        case .int16(let v): return String(v)
        case .int32(let v): return String(v)
        case .int64(let v): return String(v)
        case .decimal(let v):
            let text = "\(v)"
            return text.contains(".") ? text : text + ".0"
        case .double(let v): return floating(v)
        case .single(let v): return floating(Double(v))
        case .dateTime(let d):
            let c = d.components
            if c.hour == 0, c.minute == 0, c.second == 0, c.microsecond == 0 {
                return String(d.isoString.prefix(10))
            }
            return d.isoString + "Z"
        case .dateTimeOffset(let d): return d.isoString
        case .time(let t): return t.clockString
        case .guid(let g): return g.uuidString.lowercased()
        case .binary(let data):
            let base64 = data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            return "binary'\(base64)'"
        }
    }

    private static func floating(_ v: Double) -> String {
        let text = ODataLiteral.formatFloating(v)
        if v.isNaN || v.isInfinite || text.contains("E") { return text }
        return text + "E0"
    }
}
