/// The ids of stored objects: 32 random lowercase hex characters, chosen by the store, never
/// derived from a blob's name (so a name can reach no file, and `a` and `a/b` may both exist).
/// The same form on every store, so an object keeps its id when it moves from one store to another.
enum BlobObjectID {
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
    }

    /// Whether `text` is an id ``make()`` could have made; nothing else names an object.
    static func isValid(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }
}
