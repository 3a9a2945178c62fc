import StrataOData

extension ServerOpenAPI {
    /// The root, health, metrics, the console and the documents themselves.
    static var operations: [ServerEndpoint] {
        [
            ServerEndpoint("get", "/", tag: "server", "The services the caller may use.",
                           answers: [("200", "The services.", .json(anyObject))]),
            ServerEndpoint("get", "/health", tag: "server", "Ready: the databases answer (the same as /health/ready).",
                           answers: [("200", "Ready.", .json(anyObject)), ("503", "Not ready.", .json(anyObject))]),
            ServerEndpoint("get", "/health/ready", tag: "server", "Ready: the databases answer.",
                           answers: [("200", "Ready.", .json(anyObject)), ("503", "Not ready.", .json(anyObject))]),
            ServerEndpoint("get", "/health/live", tag: "server", "Live: the process answers.", answers: [("200", "Live.", .json(anyObject))]),
            ServerEndpoint("get", "/metrics", tag: "server", "Prometheus metrics (administrators, unless the server opens them).",
                           answers: [("200", "The exposition.", .text("text/plain"))]),
            ServerEndpoint("get", "/console", tag: "console", "The browser console.", answers: [("200", "The console's page.", .html)]),
            ServerEndpoint("get", "/console/{file}", tag: "console", "A file of the console.",
                           answers: [("200", "The file.", .text("application/octet-stream"))]),
            ServerEndpoint("get", "/openapi.json", tag: "server", "This document.", answers: [("200", "The document.", .json(anyObject))]),
            ServerEndpoint("get", "/openapi.yaml", tag: "server", "This document in YAML.",
                           answers: [("200", "The document.", .text("application/yaml"))]),
        ]
    }

    /// The endpoints every service has beside OData's, under `/{service}`.
    static var services: [ServerEndpoint] {
        let tag = "service"
        return [
            ServerEndpoint("get", "/{service}/openapi.json", tag: tag, "The service's OpenAPI document, as the caller is served the service.",
                           answers: [("200", "The document.", .json(anyObject))]),
            ServerEndpoint("get", "/{service}/openapi.yaml", tag: tag, "The service's OpenAPI document in YAML.",
                           answers: [("200", "The document.", .text("application/yaml"))]),
            ServerEndpoint("get", "/{service}/$tables", tag: tag, "Several tables at once, or their changes since a token (docs/FEED.md).",
                           query: [.query("names", "Comma-separated tables."), .query("track", "1: answer a token for later changes."),
                                   .query("since", "A token: the changes after it."), .query("wait", "Seconds to wait for a change.")],
                           answers: [("200", "The tables (or their changes).", .json(anyObject))]),
            ServerEndpoint("get", "/{service}/$tables/{table}", tag: tag, "One table with OData's query options, in the compact table format.",
                           answers: [("200", "The table.", .json(anyObject))]),
            ServerEndpoint("post", "/{service}/$sql", tag: tag, "A SELECT in Strata's client SQL, checked against the caller's rights.",
                           body: .json(fields(["sql", "parameters"], required: ["sql"])),
                           answers: [("200", "The result, as a table.", .json(anyObject))]),
            ServerEndpoint("post", "/{service}/$changes", tag: tag, "A change set: inserts, updates and deletes, applied whole.",
                           body: .json(fields(["changes", "mode", "receipt"], required: ["changes"])),
                           answers: [("200", "Each change's result, and the keys the database gave.", .json(anyObject))]),
            ServerEndpoint("get", "/{service}/$feed", tag: tag, "The change feed: one event per committed transaction.",
                           query: [.query("sets", "Comma-separated sets.", required: true), .query("since", "A token: the changes after it.")],
                           answers: [("200", "The stream.", .eventStream)]),
        ]
    }
}
