// Calls a running Strata through the client swift-openapi-generator made from the service's own
// document: list, filter, read by key, create, update with If-Match (and a stale If-Match refused).
//   CarDealerClient SERVICE_ROOT USER PASSWORD     prints what it saw as JSON; exits 1 on a mismatch.
import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession

/// Sends HTTP Basic credentials with every request, and the entity tags of If-Match and
/// If-None-Match as the server wrote them: swift-openapi-runtime URI-encodes every header value it
/// sets from a parameter, so the quotes of an ETag (`"abc"`) would travel as `%22abc%22`.
struct StrataHeaders: ClientMiddleware {
    let authorization: String

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = authorization
        for name in [HTTPField.Name.ifMatch, .ifNoneMatch] {
            if let value = request.headerFields[name] { request.headerFields[name] = value.removingPercentEncoding ?? value }
        }
        return try await next(request, body, baseURL)
    }
}

struct Failure: Error, CustomStringConvertible {
    var description: String
}

func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw Failure(description: message()) }
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let serviceRoot = URL(string: arguments[1]) else {
    FileHandle.standardError.write(Data("usage: CarDealerClient SERVICE_ROOT USER PASSWORD\n".utf8))
    exit(2)
}
let credentials = Data("\(arguments[2]):\(arguments[3])".utf8).base64EncodedString()
let client = Client(serverURL: serviceRoot, transport: URLSessionTransport(), middlewares: [StrataHeaders(authorization: "Basic " + credentials)])

do {
    // List: a page of three.
    let page = try await client.person_list(query: .init(_dollar_top: 3)).ok.body.json.d.results
    try check(page.count == 3, "a page of 3 people, not \(page.count)")
    let first = page[0]
    let id = try first.personID ?? { throw Failure(description: "a person without personID") }()
    let lastName = try first.lastName ?? { throw Failure(description: "a person without lastName") }()

    // Filter: by the first person's last name.
    let filtered = try await client.person_list(query: .init(_dollar_filter: "lastName eq '\(lastName.replacingOccurrences(of: "'", with: "''"))'"))
        .ok.body.json.d.results
    try check(!filtered.isEmpty && filtered.allSatisfy { $0.lastName == lastName }, "the filter by lastName answered \(filtered.map(\.lastName))")
    try check(filtered.contains { $0.personID == id }, "the filter lost person \(id)")

    // Read by key.
    let read = try await client.person_get(path: .init(personID: id)).ok
    let readID = try read.body.json.d.personID
    try check(readID == id && read.headers.eTag != nil, "Person(\(id)) read as \(readID.map(String.init) ?? "nil")")

    // Create.
    let created = try await client.person_create(body: .json(.init(firstName: "Generated", lastName: "Client"))).created.body.json.d
    let newID = try created.personID ?? { throw Failure(description: "the created person has no personID") }()
    try check(created.firstName == "Generated", "created \(created)")

    // Update with If-Match: the ETag just read, then a stale one.
    let tag = try await client.person_get(path: .init(personID: newID)).ok.headers.eTag
    try check(tag != nil, "no ETag on Person(\(newID))")
    _ = try await client.person_update(path: .init(personID: newID), headers: .init(ifMatch: tag), body: .json(.init(lastName: "Updated"))).noContent
    let stale = try await client.person_update(path: .init(personID: newID), headers: .init(ifMatch: tag), body: .json(.init(lastName: "Again")))
    guard case .default(statusCode: 412, let refusal) = stale else { throw Failure(description: "a stale If-Match answered \(stale)") }
    let code = try refusal.body.json.error.code
    let updated = try await client.person_get(path: .init(personID: newID)).ok.body.json.d
    try check(updated.lastName == "Updated", "after the update: \(updated.lastName ?? "nil")")

    print(#"{"listed":\#(page.count),"filtered":\#(filtered.count),"read":\#(id),"created":\#(newID),"stale":"\#(code)"}"#)
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
