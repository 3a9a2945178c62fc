/// The rule that turns a database name into a name OData clients can use.
///
/// An OData name here is what Strata's URL, `$filter`, `$select` and `$orderby` parsers accept as a
/// name: a letter or `_`, then letters, digits and `_` (letters and digits in Unicode's sense, so
/// `Straße` stays `Straße`). A database name that already is one is served unchanged. Any other is
/// made one by ``sanitized(_:)``:
///
/// - each character that cannot be in a name becomes `_`, one for one: `Order Details` →
///   `Order_Details`, `Unit Price ($)` → `Unit_Price____`; runs are not collapsed and nothing is
///   trimmed, so the name can be worked out by hand and distinct names rarely meet;
/// - a name that then starts with a digit gets a leading `_`: `2021 Sales` → `_2021_Sales`;
/// - the empty name becomes `_`.
///
/// When the result is taken, ``NameAllocation`` appends `_2`, `_3`, … (see <doc:Naming>).
package enum ODataIdentifier {
    /// Whether `name` is served as it is.
    package static func isValid(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, isStart(first) else { return false }
        return name.unicodeScalars.allSatisfy(isPart)
    }

    /// The name made an identifier by the rule above; a valid name is returned unchanged.
    static func sanitized(_ name: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            scalars.append(isPart(scalar) ? scalar : "_")
        }
        if let first = scalars.first, !isStart(first) { scalars.insert("_", at: scalars.startIndex) }
        return scalars.isEmpty ? "_" : String(scalars)
    }

    /// The same tests as StrataCore's query lexer and path parser, so every name served can be written in a URL.
    private static func isStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || scalar.properties.isAlphabetic
    }

    private static func isPart(_ scalar: Unicode.Scalar) -> Bool {
        isStart(scalar) || scalar.properties.numericType != nil
    }
}
