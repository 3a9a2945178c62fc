/// What a name in the OData model may be.
enum ModelNames {
    /// An OData identifier: a letter or `_`, then letters, digits or `_` (CSDL's SimpleIdentifier,
    /// which a URL segment, a `$filter` name and a JSON property can all carry unquoted).
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || first.properties.isAlphabetic else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || $0.properties.isAlphabetic || $0.properties.numericType != nil }
    }
}
