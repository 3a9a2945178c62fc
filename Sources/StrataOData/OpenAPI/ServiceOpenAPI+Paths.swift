import Foundation
import StrataCore
import StrataIdentity

extension ServiceOpenAPI {
    /// The service document, `$metadata` and `$batch`.
    func addServicePaths(to document: inout OpenAPIDocument) {
        var root = OpenAPIOperation(operationId: "serviceDocument", summary: "The entity sets of the service.")
        root.responses["200"] = OpenAPIResponse(description: "The service document.", content: json(.object([], description: isV4
            ? "{\"@odata.context\", \"value\": [{\"name\", \"kind\", \"url\"}]}" : "{\"d\": {\"EntitySets\": […]}}")))
        root.responses["default"] = error
        document.paths["/"] = withGet(root)

        var metadata = OpenAPIOperation(operationId: "metadata", summary: "The model in CSDL (EDMX).")
        metadata.responses["200"] = OpenAPIResponse(description: "The service's model as the caller is served it.",
                                                    content: OpenAPIMap([("application/xml", OpenAPIMediaType(schema: .string()))]))
        metadata.responses["default"] = error
        document.paths["/$metadata"] = withGet(metadata)

        var batch = OpenAPIOperation(operationId: "batch", summary: "Several requests in one: queries, and change sets that apply whole or not at all.")
        let multipart = OpenAPIMediaType(schema: .string("A multipart/mixed batch with a boundary parameter."))
        var content = OpenAPIMap([("multipart/mixed", multipart)])
        var answers = content
        if isV4 {
            // V4's JSON batch: requests in, responses out.
            content["application/json"] = OpenAPIMediaType(schema: .object([("requests", .array(of: .object([])))], required: ["requests"]))
            answers["application/json"] = OpenAPIMediaType(schema: .object([("responses", .array(of: .object([])))], required: ["responses"]))
        }
        batch.requestBody = OpenAPIRequestBody(content: content)
        // V2 answers a batch 202 Accepted, V4 200 OK; each part carries its own status.
        batch.responses[isV4 ? "200" : "202"] = OpenAPIResponse(description: "The parts' answers, in the request's format.", content: answers)
        batch.responses["default"] = error
        var item = OpenAPIPathItem()
        item.post = batch
        document.paths["/$batch"] = item
    }

    func addPaths(of set: EntitySet, to document: inout OpenAPIDocument) {
        let name = set.name
        let tags = [name]
        var collection = OpenAPIPathItem()
        var list = OpenAPIOperation(operationId: "\(name).list", summary: "Entities of \(name), a page at a time.", tags: tags,
                                    parameters: collectionOptions + [readPreferences])
        list.responses["200"] = OpenAPIResponse(description: "A page of entities.", content: json(.reference(Self.collectionName(set))))
        list.responses["200"]?.links = links(to: set, from: isV4 ? "/value/0" : "/d/results/0", reading: true)
        list.responses["default"] = error
        collection.get = list
        if capabilities.allows(.insert, on: name) {
            var create = OpenAPIOperation(operationId: "\(name).create", summary: "Creates an entity of \(name).", tags: tags, parameters: [prefer])
            create.requestBody = OpenAPIRequestBody(content: json(.reference(Self.createName(set))))
            create.responses["201"] = OpenAPIResponse(description: "The entity as stored.", headers: entityHeaders(location: true),
                                                      content: json(single(set)))
            create.responses["201"]?.links = links(to: set, from: isV4 ? "" : "/d")
            create.responses["204"] = OpenAPIResponse(description: "Stored (Prefer: return=minimal).", headers: entityHeaders(location: true))
            create.responses["default"] = error
            collection.post = create
        }
        document.paths["/\(name)"] = collection

        var count = OpenAPIOperation(operationId: "\(name).count", summary: "The number of entities of \(name).", tags: tags,
                                     parameters: [query("$filter", "Count only the entities for which this is true.")])
        count.responses["200"] = OpenAPIResponse(description: "The number, as plain text.",
                                                 content: OpenAPIMap([("text/plain", OpenAPIMediaType(schema: .string()))]))
        count.responses["default"] = error
        document.paths["/\(name)/$count"] = withGet(count)

        let (path, keys) = keyed(set)
        var entity = OpenAPIPathItem(parameters: keys)
        var get = OpenAPIOperation(operationId: "\(name).get", summary: "One entity of \(name), by key.", tags: tags,
                                   parameters: entityOptions + [ifNoneMatch])
        get.responses["200"] = OpenAPIResponse(description: "The entity.", headers: entityHeaders(), content: json(single(set)))
        get.responses["304"] = OpenAPIResponse(description: "The entity still has the ETag of If-None-Match.")
        get.responses["default"] = error
        entity.get = get
        if capabilities.allows(.update, on: name) {
            entity.put = change(set, "\(name).replace", "Replaces an entity of \(name): properties left out become null or their default.")
            entity.patch = change(set, "\(name).update", "Changes the given properties of an entity of \(name) (MERGE in V2's terms).")
        }
        if capabilities.allows(.delete, on: name) {
            var delete = OpenAPIOperation(operationId: "\(name).delete", summary: "Deletes an entity of \(name).", tags: tags, parameters: [ifMatch])
            delete.responses["204"] = OpenAPIResponse(description: "Deleted.")
            delete.responses["default"] = error
            entity.delete = delete
        }
        document.paths[path] = entity
        addNavigationPaths(of: set, keyPath: path, keys: keys, to: &document)
    }

    /// `Set(key)/Navigation` for each navigation property leading to a set the caller may read.
    private func addNavigationPaths(of set: EntitySet, keyPath: String, keys: [OpenAPIParameter], to document: inout OpenAPIDocument) {
        for navigation in model.entityType(of: set).navigationProperties {
            guard let target = model.entitySet(named: navigation.targetSet), readableSets.contains(target.name) else { continue }
            let many = navigation.multiplicity == .many
            var read = OpenAPIOperation(operationId: "\(set.name).\(navigation.name)", summary: many
                                            ? "The entities of \(target.name) related to this entity of \(set.name)."
                                            : "The entity of \(target.name) related to this entity of \(set.name).",
                                        tags: [set.name], parameters: many ? collectionOptions : entityOptions)
            read.responses["200"] = OpenAPIResponse(description: many ? "A page of related entities." : "The related entity.",
                                                    content: json(many ? .reference(Self.collectionName(target)) : single(target)))
            read.responses["default"] = error
            var item = withGet(read)
            item.parameters = keys
            document.paths["\(keyPath)/\(navigation.name)"] = item
        }
    }

    /// Links from an answer holding an entity of `set` at the JSON pointer `pointer` to the
    /// operations on that entity by key: reading it, and (unless `reading`) changing and deleting it.
    private func links(to set: EntitySet, from pointer: String, reading: Bool = false) -> OpenAPIMap<OpenAPILink> {
        let keys = OpenAPIMap(model.entityType(of: set).keyNames.map { key in
            (key, "$response.body#\(pointer)/" + key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1"))
        })
        var operations = ["get"]
        if !reading {
            if capabilities.allows(.update, on: set.name) { operations += ["update", "replace"] }
            if capabilities.allows(.delete, on: set.name) { operations.append("delete") }
        }
        return OpenAPIMap(operations.map { ($0, OpenAPILink(operationId: "\(set.name).\($0)", parameters: keys)) })
    }

    private func change(_ set: EntitySet, _ operationId: String, _ summary: String) -> OpenAPIOperation {
        var operation = OpenAPIOperation(operationId: operationId, summary: summary, tags: [set.name], parameters: [ifMatch])
        operation.requestBody = OpenAPIRequestBody(content: json(.reference(Self.updateName(set))))
        operation.responses["204"] = OpenAPIResponse(description: "Changed.", headers: entityHeaders())
        operation.responses["default"] = error
        return operation
    }

    /// One entity's answer: `{"d": entity}` in V2, the entity itself (with `@odata.context`) in V4.
    private func single(_ set: EntitySet) -> OpenAPISchema {
        .reference(isV4 ? Self.entityName(set) : Self.singleName(set))
    }

    private func entityHeaders(location: Bool = false) -> OpenAPIMap<OpenAPIHeader> {
        var headers = OpenAPIMap([("ETag", OpenAPIHeader(description: "The entity's ETag, for If-Match and If-None-Match.", schema: .string()))])
        if location { headers["Location"] = OpenAPIHeader(description: "The new entity's URL.", schema: .string()) }
        return headers
    }

    /// Any status the operation does not list: an OData error body.
    var error: OpenAPIResponse {
        OpenAPIResponse(description: "An error: 400 for a request the service cannot take, 401 or 403 without the right, 404 for "
                            + "an entity that is not there, 412 or 428 for If-Match, 413 for a body too large.",
                        content: json(.reference("ODataError")))
    }

    func json(_ schema: OpenAPISchema) -> OpenAPIMap<OpenAPIMediaType> {
        OpenAPIMap([("application/json", OpenAPIMediaType(schema: schema))])
    }

    private func withGet(_ operation: OpenAPIOperation) -> OpenAPIPathItem {
        var item = OpenAPIPathItem()
        item.get = operation
        return item
    }
}
