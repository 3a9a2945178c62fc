import StrataCore

extension ServiceOpenAPI {
    /// The query options of a read of a collection: V2's `$inlinecount`, V4's `$count`, `$search`
    /// and `$apply`, and the options both versions share.
    var collectionOptions: [OpenAPIParameter] {
        var options = [
            query("$filter", "Only the entities for which this boolean expression is true (OData's filter language)."),
            query("$orderby", "Comma-separated properties (paths through navigation allowed), each optionally followed by asc or desc."),
            query("$top", "At most this many entities.", integerAtLeast(0)),
            query("$skip", "Leave out this many entities first.", integerAtLeast(0)),
            query("$select", "Comma-separated properties to answer (and navigation properties, with $expand)."),
            query("$expand", "Comma-separated navigation properties whose entities to answer inline."),
            query("$skiptoken", "The position after the previous page: copy it from the page's next link."),
        ]
        if isV4 {
            options.append(query("$count", "Answer the number of matching entities too (@odata.count).", OpenAPISchema(type: .boolean)))
            options.append(query("$search", "Only the entities whose text properties contain these words."))
            options.append(query("$apply", "Aggregation (OData's Data Aggregation extension): filter, groupby, aggregate."))
        } else {
            var count = OpenAPISchema(type: .string)
            count.enum = [.string("allpages"), .string("none")]
            options.append(query("$inlinecount", "allpages answers the number of matching entities too (__count).", count))
        }
        return options
    }

    /// The query options of a read of one entity.
    var entityOptions: [OpenAPIParameter] {
        [query("$select", "Comma-separated properties to answer."),
         query("$expand", "Comma-separated navigation properties whose entities to answer inline.")]
    }

    func query(_ name: String, _ description: String, _ schema: OpenAPISchema = .string()) -> OpenAPIParameter {
        OpenAPIParameter(name: name, in: .query, description: description, schema: schema)
    }

    private func integerAtLeast(_ minimum: Int64) -> OpenAPISchema {
        var schema = OpenAPISchema(type: .integer)
        schema.minimum = minimum
        return schema
    }

    /// A read's preferences: a delta link (the change feed, docs/FEED.md) and a smaller page.
    var readPreferences: OpenAPIParameter {
        var schema = OpenAPISchema.string()
        schema.examples = [.string("odata.track-changes"), .string("odata.maxpagesize=50")]
        return OpenAPIParameter(name: "Prefer", in: .header,
                                description: "odata.track-changes: the last page carries a delta link (\(isV4 ? "@odata.deltaLink" : "__delta")) "
                                    + "to the changes after this read, where the service tracks the set's changes; "
                                    + "odata.maxpagesize=N: pages of at most N entities.",
                                schema: schema)
    }

    /// `If-Match`: the entity's ETag, or `*`; required where the service says so (428 otherwise).
    var ifMatch: OpenAPIParameter {
        OpenAPIParameter(name: "If-Match", in: .header,
                         description: "The ETag the entity was read with, or * for any; the change is refused (412) if it changed since."
                            + (requireIfMatch ? " This service requires it (428 without)." : ""),
                         required: requireIfMatch, schema: .string())
    }

    var ifNoneMatch: OpenAPIParameter {
        OpenAPIParameter(name: "If-None-Match", in: .header, description: "An ETag: 304 without a body while the entity still has it.",
                         schema: .string())
    }

    var prefer: OpenAPIParameter {
        var schema = OpenAPISchema(type: .string)
        schema.enum = [.string("return=representation"), .string("return=minimal")]
        return OpenAPIParameter(name: "Prefer", in: .header,
                                description: "return=minimal answers 204 without the created entity (Preference-Applied says so).",
                                schema: schema)
    }

    /// The path of one entity of `set` and its key's parameters: `Person({personID})`, or
    /// `Events(PartitionKey='{PartitionKey}',RowKey='{RowKey}')` for a key of several properties.
    /// String keys are quoted as OData literals; a quote inside one is doubled (`O''Brien`).
    func keyed(_ set: EntitySet) -> (path: String, parameters: [OpenAPIParameter]) {
        let type = model.entityType(of: set)
        let keys = type.keyProperties
        let literal = { (property: EntityProperty) -> String in
            property.type == .string ? "'{\(property.name)}'" : "{\(property.name)}"
        }
        let predicate = keys.count == 1
            ? literal(keys[0])
            : keys.map { "\($0.name)=" + literal($0) }.joined(separator: ",")
        let parameters = keys.map { property in
            OpenAPIParameter(name: property.name, in: .path,
                             description: property.type == .string
                                ? "The key \(property.name); a single quote inside it is written twice."
                                : "The key \(property.name), as an OData literal.",
                             schema: keySchema(property))
        }
        return ("/\(set.name)(\(predicate))", parameters)
    }

    private func keySchema(_ property: EntityProperty) -> OpenAPISchema {
        // In a URL an Int64 is digits, whatever the JSON writes it as.
        if property.type == .int64 { return OpenAPISchema(type: .integer, format: "int64") }
        if property.type.isIntegral { return primitiveSchema(property.type) }
        var schema = OpenAPISchema.string()
        if property.type == .string, let maxLength = property.maxLength { schema.maxLength = maxLength }
        return schema
    }
}
