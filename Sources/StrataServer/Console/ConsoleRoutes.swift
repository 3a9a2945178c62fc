import Foundation
import Hummingbird
import StrataIdentity

/// `/console`: the console's page and files. Everything it shows comes from the public APIs,
/// called from the browser with the caller's own token.
enum ConsoleRoutes {
    static func register(on router: Router<StrataRequestContext>) {
        let development = !(ProcessInfo.processInfo.environment["STRATA_CONSOLE_DIR"] ?? "").isEmpty
        @Sendable func assets() -> ConsoleAssets {
            development ? ConsoleAssets.current() : ConsoleAssets.bundled
        }
        // Also `/console/`: the router does not tell the two apart.
        router.get("/console") { request, context in
            context.setRoute("console")
            return try assets().response(for: "index.html", ifNoneMatch: request.headers[.ifNoneMatch])
        }
        router.get("/console/{file}") { request, context in
            context.setRoute("console.file")
            let file = try context.parameters.require("file")
            return try assets().response(for: file, ifNoneMatch: request.headers[.ifNoneMatch])
        }
    }
}
