import StrataCore

/// The columns a new row must be given: not null, no default, not produced by the database.
/// Inserts through OData and through `$changes` refuse the same rows with the same message.
package enum RequiredProperties {
    /// Throws 400 naming the first required property that neither `values` nor `supplied` (columns
    /// filled from elsewhere: a parent's key, a related entity) provides.
    package static func check(_ type: EntityType, values: [String: ODataValue], supplied: Set<String>, path: String) throws(ODataError) {
        for property in type.properties
        where !property.isNullable && !property.hasDefault && !property.isServerGenerated
            && values[property.name] == nil && !supplied.contains(property.name) {
            throw ODataError.badRequest("The property \(property.name) of \(path) is required: it cannot be null and has no default.", target: property.name)
        }
    }
}
