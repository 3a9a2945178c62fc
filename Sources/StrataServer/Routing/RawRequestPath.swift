import Hummingbird

extension Request {
    /// The request target's path, still percent-encoded, without its query: what `uri.path` holds,
    /// as a slice of the request head instead of a new string. `uri.path` builds a string on every
    /// call, and the responder and the authentication middleware only compare the path.
    var rawPath: Substring {
        let target = head.path ?? "/"
        return target[..<(target.utf8.firstIndex(of: UInt8(ascii: "?")) ?? target.endIndex)]
    }
}
