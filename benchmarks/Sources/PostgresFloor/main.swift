import Foundation
import Hummingbird
import Logging
import PostgresNIO

// postgres-floor --port 8093 --database postgres://user@host:port/db
//
// The least a Hummingbird server can do for GET by key on PostgreSQL, with the driver Strata uses:
// `GET /person/ID` runs one prepared statement through postgres-nio's `PostgresClient` and writes the
// row as JSON by hand. No model, middleware, ETag or metadata. Where this falls short of the ceiling,
// the HTTP stack, the driver and PostgreSQL on the same cores are the reason, not Strata.

struct PersonByKey: PostgresPreparedStatement {
    static let sql = #"SELECT "personID", "firstName", "lastName", "ssn", "createDate"::text FROM "cardealer"."Person" WHERE "personID" = $1"#
    typealias Row = (Int32, String, String, String?, String?)
    var id: Int32

    func makeBindings() -> PostgresBindings {
        var bindings = PostgresBindings()
        bindings.append(id)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}

var port = 8093
var databaseURL = ""
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--port": port = Int(arguments.next() ?? "") ?? port
    case "--database": databaseURL = arguments.next() ?? ""
    default:
        FileHandle.standardError.write(Data("usage: postgres-floor [--port N] --database postgres://user@host:port/db\n".utf8))
        exit(2)
    }
}
guard let url = URLComponents(string: databaseURL), let host = url.host else {
    FileHandle.standardError.write(Data("postgres-floor: --database postgres://user@host:port/db is required\n".utf8))
    exit(2)
}
// As many connections as Strata keeps open by default (`--database-connections`).
var configuration = PostgresClient.Configuration(
    host: host, port: url.port ?? 5432, username: url.user ?? "postgres", password: url.password,
    database: url.path.count > 1 ? String(url.path.dropFirst()) : nil, tls: .disable)
configuration.options.minimumConnections = 10
configuration.options.maximumConnections = 10
let client = PostgresClient(configuration: configuration)

var headers = HTTPFields()
headers[.contentType] = "application/json;charset=utf-8"
let responseHeaders = headers

let router = Router()
router.get("person/:id") { _, context -> Response in
    guard let id = context.parameters.get("id", as: Int32.self) else { return Response(status: .badRequest) }
    var body: String?
    for try await (key, first, last, ssn, created) in try await client.execute(PersonByKey(id: id)) {
        body = #"{"d":{"personID":\#(key),"firstName":"\#(first)","lastName":"\#(last)","ssn":"\#(ssn ?? "")","createDate":"\#(created ?? "")"}}"#
    }
    guard let body else { return Response(status: .notFound) }
    return Response(status: .ok, headers: responseHeaders, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
}

var logger = Logger(label: "postgres-floor")
logger.logLevel = .warning
let app = Application(
    router: router,
    configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "PostgresFloor"),
    logger: logger)
print("postgres-floor on http://127.0.0.1:\(port)/person/ID")
try await withThrowingDiscardingTaskGroup { group in
    group.addTask { await client.run() }
    try await app.runService()
}
