import StrataCore

/// A grant's row filter: an OData `$filter` expression over the table's columns that may use the
/// caller's claims, as in `ownerId eq $claims.sub`.
///
/// `$claims.<name>` is not part of the OData grammar. Before parsing, each occurrence outside a
/// string literal is replaced by the claim's value written as an OData string literal
/// (``ODataLiteral/format(_:)``, so a quote in the value is doubled): the value can only ever be a
/// string constant, never syntax. A claim name is ASCII letters, digits and `_`. A claim the caller
/// does not have makes the grant give that caller nothing (the filter is not applied with a guess).
/// Claims are strings, so they compare with string columns.
package enum GrantRowFilter {
    struct MissingClaim: Error, Sendable {
        var name: String
    }

    static let marker = Array("$claims.".unicodeScalars)

    /// The filter text with every claim reference replaced by a string literal.
    static func substitute(_ text: String, claims: [String: String]) throws(MissingClaim) -> String {
        var output = String.UnicodeScalarView()
        let scalars = Array(text.unicodeScalars)
        var inString = false
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            if c == "'" {
                // '' inside a literal toggles out and straight back in, which is what it means.
                inString.toggle()
            } else if !inString, c == "$", scalars[i...].starts(with: marker) {
                var end = i + marker.count
                while end < scalars.count, isNameScalar(scalars[end]) { end += 1 }
                let name = String(String.UnicodeScalarView(scalars[(i + marker.count)..<end]))
                if !name.isEmpty {
                    guard let value = claims[name] else { throw MissingClaim(name: name) }
                    output.append(contentsOf: ODataLiteral.format(.string(value)).unicodeScalars)
                    i = end
                    continue
                }
            }
            output.append(c)
            i += 1
        }
        return String(output)
    }

    /// The claim names the filter uses.
    static func referencedClaims(_ text: String) -> Set<String> {
        var names: Set<String> = []
        var claims: [String: String] = [:]
        // Substituting with a growing set of placeholders finds every name, in order.
        while true {
            do {
                _ = try substitute(text, claims: claims)
                return names
            } catch {
                names.insert(error.name)
                claims[error.name] = ""
            }
        }
    }

    private static func isNameScalar(_ c: Unicode.Scalar) -> Bool {
        c.isASCII && (c.properties.isAlphabetic || c.properties.numericType != nil || c == "_")
    }

    /// Parses and binds the filter for a caller against an entity set of a service model.
    static func bind(_ text: String, claims: [String: String], entitySet: String, model: ServiceModel) throws -> BoundExpression {
        let substituted = try substitute(text, claims: claims)
        return try bindSubstituted(substituted, entitySet: entitySet, model: model)
    }

    /// Checks a filter when it is granted: it must parse and bind (with every claim standing in as a
    /// string) to a Boolean expression on the table.
    package static func validate(_ text: String, entitySet: String, model: ServiceModel) throws(ODataError) {
        let claims = Dictionary(uniqueKeysWithValues: referencedClaims(text).map { ($0, "claim") })
        let substituted: String
        do {
            substituted = try substitute(text, claims: claims)
        } catch {
            throw .badRequest("The row filter uses $claims.\(error.name), which could not be read.")
        }
        try bindSubstituted(substituted, entitySet: entitySet, model: model)
    }

    @discardableResult
    private static func bindSubstituted(_ text: String, entitySet: String, model: ServiceModel) throws(ODataError) -> BoundExpression {
        guard let set = model.entitySet(named: entitySet) else {
            throw .badRequest("The service \(model.serviceName) has no table \(entitySet).")
        }
        let expression = try QueryOptionParser.filter(text)
        let bound = try QueryBinder(model: model).bindFilter(expression, on: model.entityType(of: set))
        guard bound.type == .boolean else {
            throw .badRequest("A row filter must be a condition (Edm.Boolean), but this one is \(bound.type?.rawValue ?? "null").")
        }
        return bound
    }
}
