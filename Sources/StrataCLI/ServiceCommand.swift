import ArgumentParser
import Foundation
import StrataCore
import StrataServer
import StrataStorage

/// `strata service list|set|model|reload`: per-service settings in the system database, and the
/// services' models.
struct ServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "service",
        abstract: "Show or change the settings of each service.",
        discussion: """
            Settings live in Strata's system database (the same --data, --database or --system-database as \
            `strata serve`). \
            A running server applies them when it starts next; `PUT /admin/services` changes them and \
            applies them at once. Anonymous access is set with `strata grant anonymous`.
            """,
        subcommands: [List.self, Set.self, Model.self, Track.self, Reload.self, SignIn.self])

    /// `page size 200, If-Match required, statement timeout 30 s`, as both subcommands show a service's settings.
    static func describe(_ settings: ServiceSettings) -> String {
        let timeout = settings.statementTimeoutMilliseconds.map { $0 == 0 ? "none" : DurationText.format(.milliseconds($0)) }
        return "page size \(settings.pageSize.map(String.init) ?? "server default"), If-Match \(settings.requireIfMatch ? "required" : "optional"), "
            + "statement timeout \(timeout ?? "server default"), generated keys \(settings.allowClientKeys ? "may be given by clients" : "assigned by the database only"), "
            + "OData \(settings.odataVersion == .v4 ? "4.0" : "2.0") unless a request asks for another"
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the services that have settings.")
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let settings = try await storage.administer { try await $0.serviceSettings() }
            if settings.isEmpty { print("No service has settings; all use the defaults.") }
            for (name, value) in settings.sorted(by: { $0.key < $1.key }) {
                print("\(name)\t\(ServiceCommand.describe(value))")
            }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a service's page size, If-Match requirement, statement timeout, client keys or default OData version.",
            discussion: """
                Examples:
                  strata service set cardealer --page-size 200
                  strata service set cardealer --page-size default --require-if-match true
                  strata service set hockey --statement-timeout 30s
                  strata service set ledger --allow-client-keys true
                  strata service set cardealer --odata-version 4.0
                """)

        @Argument(help: "The service.") var name: String
        @Option(help: "Rows per response before a __next link, or 'default' for the server's --page-size.")
        var pageSize: String?
        @Option(help: "Whether PUT, MERGE, PATCH and DELETE must carry If-Match (true or false).")
        var requireIfMatch: Bool?
        @Option(help: "The longest one SQL statement of the service may run (500ms, 30s, 2m; 0 for no limit), or 'default' for the server's --statement-timeout.")
        var statementTimeout: String?
        @Option(help: "Whether inserts may give values for keys the database generates (identity, serial, autoincrement; true or false). Off, such values are refused with 400; on, PostgreSQL's sequence is moved past each given key.")
        var allowClientKeys: Bool?
        @Option(help: "The OData version of requests that name none (2.0 or 4.0). Requests that ask for V2 or V4 get it either way; 2.0 keeps existing clients as they are.")
        var odataVersion: String?
        @OptionGroup var storage: StorageOptions

        func validate() throws {
            guard pageSize != nil || requireIfMatch != nil || statementTimeout != nil || allowClientKeys != nil || odataVersion != nil else {
                throw ValidationError("give --page-size, --require-if-match, --statement-timeout, --allow-client-keys, --odata-version or several")
            }
        }

        func run() async throws {
            var setting: PageSizeSetting?
            if let pageSize {
                if pageSize == "default" {
                    setting = .serverDefault
                } else if let rows = Int(pageSize) {
                    setting = .value(rows)
                } else {
                    throw CommandFailure("--page-size is a number of rows or 'default', not \(pageSize)")
                }
            }
            var timeout: SettingChange<Int>?
            if let statementTimeout {
                timeout = statementTimeout == "default" ? .serverDefault
                    : .value(Int(try DurationText.parse(statementTimeout, option: "--statement-timeout") / .milliseconds(1)))
            }
            var version: ODataVersion?
            if let odataVersion {
                do {
                    version = try Administration.defaultODataVersion(odataVersion)
                } catch {
                    throw CommandFailure("--odata-version: \(error.message)")
                }
            }
            let result = try await storage.administer { [name, setting, requireIfMatch, timeout, allowClientKeys, version] in
                try await $0.configureService(name, pageSize: setting, requireIfMatch: requireIfMatch, statementTimeout: timeout,
                                              allowClientKeys: allowClientKeys, odataVersion: version)
            }
            print("\(name): \(ServiceCommand.describe(result)). A running server applies it at its next start.")
        }
    }
}
