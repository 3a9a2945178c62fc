import ArgumentParser
import Foundation
import StrataClient
import StrataCore

struct GetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Read entities from an OData service and print them as a table or as JSON.",
        discussion: """
            TARGET is SERVICE/PATH, resolved against --server, or a full URL. The path is an OData \
            resource path and may carry a query string:

              strata get cardealer/Person --top 5 --orderby 'lastName desc'
              strata get 'cardealer/Person(1)' --expand PersonCar/Car
              strata get cardealer/Person --filter "startswith(lastName,'S')" --select firstName,lastName
              strata get 'http://127.0.0.1:8080/speakeasy/Events?$top=3' --json
              strata get cardealer/Person/\\$count
              strata get cardealer          (the service's entity sets)

            Collections are read page after page until --top rows have been printed or the server \
            has no more. Expanded single entities appear as Nav/property columns, expanded \
            collections as their size. With --json the entities are printed as JSON, exactly as the \
            server sent them (a collection as one array).
            """)

    @Argument(help: "SERVICE/PATH such as cardealer/Person(1)/PersonCar, or a full URL.")
    var target: String

    @Option(help: ArgumentHelp("The server for SERVICE/PATH targets. \(DefaultServer.help)"))
    var server: String?

    @Option(help: "A $filter expression, such as \"lastName eq 'Samson'\".")
    var filter: String?

    @Option(name: .customLong("orderby"), help: "A $orderby list, such as 'lastName desc,firstName'.")
    var orderBy: String?

    @Option(help: "At most this many entities ($top).")
    var top: Int?

    @Option(help: "Leave out this many entities first ($skip).")
    var skip: Int?

    @Option(help: "Navigation paths to expand, such as PersonCar,PersonCar/Car ($expand).")
    var expand: String?

    @Option(help: "Properties to return, such as firstName,lastName ($select).")
    var select: String?

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @Flag(help: "Do not shorten long values in the table.")
    var wide = false

    @Flag(name: .customLong("first-page"), help: "Print only the first page of a collection instead of following __next links.")
    var firstPage = false

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let target = try ClientTarget(self.target, server: DefaultServer.text(option: server, environment: environment))
        // Stored credentials (from `strata login`) sign the requests and are refreshed in place.
        let session = try await Credentials.session(for: target.serverURL)
        let connection = Connection(baseURL: target.serverURL, configuration: ConnectionConfiguration(authenticator: session))
        let service = DataService(connection: connection, path: target.serviceName)
        let query = service.resource(target.path, options: try options(over: target.options))

        if target.path.segments.isEmpty {
            let names = try await service.entitySets()
            print(json ? JSONValue.array(names.map(JSONValue.string)).jsonString : names.joined(separator: "\n"))
            return
        }
        if target.rawResource != nil {
            let response = try await service.send(StrataRequest(.get, query.requestPath, headers: ["Accept": "*/*"]))
            print(response.text.hasSuffix("\n") ? String(response.text.dropLast()) : response.text)
            return
        }
        let output = Output(json: json, table: TableFormatter(maximumWidth: wide ? nil : 48))
        switch try await query.fetch() {
        case .entity(let entity):
            output.printEntity(entity)
        case .collection(let first):
            var entities = first.entities
            if !firstPage, let next = first.nextLink {
                for try await page in service.pages(from: next) { entities += page.entities }
            }
            output.printCollection(entities, count: first.count)
        }
    }

    /// The options from the target's query string with the flags applied over them.
    private func options(over base: QueryOptions) throws -> QueryOptions {
        var options = base
        do {
            if let filter { options.filter = try QueryOptionParser.filter(filter) }
            if let orderBy { options.orderBy = try QueryOptionParser.orderBy(orderBy) }
            if let expand { options.expand = try QueryOptionParser.expand(expand) }
            if let select { options.select = try QueryOptionParser.select(select) }
        } catch {
            throw ValidationError(error.message)
        }
        if let top { options.top = top }
        if let skip { options.skip = skip }
        return options
    }
}

/// Prints results as a table or as JSON.
struct Output {
    var json: Bool
    var table: TableFormatter

    func printEntity(_ entity: Entity) {
        if json {
            print(JSONValue.object(entity.json).jsonString)
        } else {
            print(table.render([entity]), terminator: "")
        }
    }

    func printCollection(_ entities: [Entity], count: Int?) {
        if json {
            print(JSONValue.array(entities.map { .object($0.json) }).jsonString)
            return
        }
        print(table.render(entities), terminator: "")
        if let count { print("(\(entities.count) of \(count))") }
    }
}
