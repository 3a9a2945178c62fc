extension String {
    /// The string without leading and trailing whitespace, through Swift's `Character` rather than
    /// Foundation's `trimmingCharacters(in:)`, which goes through NSString on Linux.
    package func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s = s.dropFirst() }
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}
