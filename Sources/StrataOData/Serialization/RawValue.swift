import Foundation
import Hummingbird
import StrataCore

/// `$value`: a property's raw value as text (or bytes for binary).
package enum RawValue {
    static func response(_ value: ODataValue, version: ODataVersion, headRequest: Bool) -> Response {
        if case .binary(let data) = value {
            return ODataResponse.body(Array(data), headers: [.contentType: "application/octet-stream",
                                                             ODataResponse.versionHeader(version): version.headerValue], headRequest: headRequest)
        }
        let text: String
        switch value {
        case .string(let s): text = s
        case .dateTime(let d): text = d.isoString
        case .dateTimeOffset(let d): text = d.isoString
        case .time(let t): text = t.durationString
        case .guid(let g): text = g.uuidString.lowercased()
        case .decimal(let d): text = d.description
        case .int64(let v): text = String(v)
        default:
            var literal = ODataLiteral.format(value)
            if literal.hasSuffix("d") || literal.hasSuffix("f") { literal.removeLast() }
            text = literal
        }
        return ODataResponse.body(Array(text.utf8), headers: [.contentType: ODataResponse.textContentType,
                                                             ODataResponse.versionHeader(version): version.headerValue], headRequest: headRequest)
    }
}
