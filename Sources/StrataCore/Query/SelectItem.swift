/// One item of `$select`: a property (`firstName`), a navigation property (`PersonCar`), a path through
/// expanded navigation properties (`PersonCar/Car`, `PersonCar/createStamp`), or a wildcard (`*`, `PersonCar/*`).
public struct SelectItem: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The names before the wildcard, or the whole path when there is none. Empty only for `*`.
    public var path: PropertyPath
    /// True for `*` and `Nav/*`: every property at the end of ``path``.
    public var isWildcard: Bool

    public init(_ path: PropertyPath, isWildcard: Bool = false) {
        self.path = path
        self.isWildcard = isWildcard
    }

    /// Reads `*`, `Nav/*` or `A/b` without validating names (``QueryOptionParser/select(_:)`` validates).
    public init(stringLiteral value: String) {
        if value == "*" {
            self.init(PropertyPath([]), isWildcard: true)
        } else if value.hasSuffix("/*") {
            self.init(PropertyPath(String(value.dropLast(2))), isWildcard: true)
        } else {
            self.init(PropertyPath(value))
        }
    }

    /// `*`: every property of the entity.
    public static let all = SelectItem(PropertyPath([]), isWildcard: true)

    /// The item as written in `$select`.
    public var description: String {
        guard isWildcard else { return path.description }
        return path.segments.isEmpty ? "*" : path.description + "/*"
    }
}
