import Foundation

/// The OData protocol versions Strata speaks. They differ in response shape: V1 writes collections
/// as bare arrays (`{"d":[…]}`), V2 wraps them (`{"d":{"results":[…],"__count":"…","__next":"…"}}`).
public enum ODataVersion: Int, Sendable, Comparable, CaseIterable {
    case v1 = 1
    case v2 = 2

    /// The value of a `DataServiceVersion` header: `1.0;` or `2.0;`.
    public var headerValue: String { "\(rawValue).0;" }

    /// Reads a version header such as `2.0`, `1.0;NetFx` or `3.0`; nil when unreadable.
    public static func parseHeader(_ value: String) -> Int? {
        let number = value.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard let major = number.split(separator: ".").first, let v = Int(major) else { return nil }
        return v
    }

    public static func < (lhs: ODataVersion, rhs: ODataVersion) -> Bool { lhs.rawValue < rhs.rawValue }
}

