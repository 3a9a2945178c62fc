/// A setting that cannot work, reported before the server starts. Declared at the bottom of the
/// layers because every layer, from storage locations up, reports bad settings with it.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
