import Foundation

/// The OData protocol versions Strata speaks. They differ in response shape: V1 writes collections
/// as bare arrays (`{"d":[…]}`), V2 wraps them (`{"d":{"results":[…],"__count":"…","__next":"…"}}`),
/// and V4 writes JSON with control information (`{"@odata.context":…,"value":[…]}`).
public enum ODataVersion: Int, Sendable, Comparable, CaseIterable {
    case v1 = 1
    case v2 = 2
    case v4 = 4

    /// The value of the version header: `DataServiceVersion: 1.0;` or `2.0;`, `OData-Version: 4.0`.
    public var headerValue: String { self == .v4 ? "4.0" : "\(rawValue).0;" }

    /// The name of the header that states a message's version: `DataServiceVersion` up to V2,
    /// `OData-Version` from V4.
    public var headerName: String { self == .v4 ? "OData-Version" : "DataServiceVersion" }

    /// V1 and V2 share one JSON format (verbose JSON) and one set of headers; V4 has its own.
    public var isV4: Bool { self == .v4 }

    /// Reads a version header such as `2.0`, `1.0;NetFx` or `3.0`; nil when unreadable.
    public static func parseHeader(_ value: String) -> Int? {
        let number = value.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard let major = number.split(separator: ".").first, let v = Int(major) else { return nil }
        return v
    }

    public static func < (lhs: ODataVersion, rhs: ODataVersion) -> Bool { lhs.rawValue < rhs.rawValue }
}

