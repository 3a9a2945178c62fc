import StrataOData

extension ServerOpenAPI {
    /// Blob containers and blobs (docs/SERVICES.md, Blobs).
    static var blobs: [ServerEndpoint] {
        let tag = "blobs"
        return [
            ServerEndpoint("get", "/blobs", tag: tag, "The containers the caller may list.", answers: [("200", "The containers.", .json(anyObject))]),
            ServerEndpoint("get", "/blobs/{container}", tag: tag, "A page of a container's blobs.",
                           query: [.query("prefix", "Only names that start with it."), .query("limit", "At most this many."),
                                   .query("marker", "The last name of the previous page.")],
                           answers: [("200", "The blobs and the next marker.", .json(anyObject))]),
            ServerEndpoint("put", "/blobs/{container}", tag: tag, "Creates a container (administrators).",
                           query: [.query("access", "private (the default) or public-read.")], answers: [("201", "Created.", nil)]),
            ServerEndpoint("delete", "/blobs/{container}", tag: tag, "Removes a container (administrators); with its blobs when forced.",
                           query: [.query("force", "true: remove its blobs too.")], answers: [("204", "Removed.", nil)]),
            ServerEndpoint("get", "/blobs/{container}/{name}", tag: tag, "A blob's content (Range, If-None-Match).",
                           headers: [OpenAPIParameter(name: "Range", in: .header, schema: .string()),
                                     OpenAPIParameter(name: "If-None-Match", in: .header, schema: .string())],
                           answers: [("200", "The content.", .bytes), ("206", "The range asked for.", .bytes), ("304", "Unchanged.", nil)]),
            ServerEndpoint("put", "/blobs/{container}/{name}", tag: tag, "Uploads a blob (If-Match, If-None-Match: *).",
                           headers: [OpenAPIParameter(name: "If-Match", in: .header, schema: .string()),
                                     OpenAPIParameter(name: "If-None-Match", in: .header, schema: .string())],
                           body: .bytes, answers: [("201", "Created.", .json(anyObject)), ("200", "Replaced.", .json(anyObject))]),
            ServerEndpoint("delete", "/blobs/{container}/{name}", tag: tag, "Deletes a blob.", answers: [("204", "Deleted.", nil)]),
        ]
    }
}
