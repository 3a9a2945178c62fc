import Foundation
import HTTPTypes
import Hummingbird
import Logging

// ceiling --port 8090 --bodies DIR
//
// Serves every file of DIR as a constant JSON body: `GET /NAME` answers 200 with the bytes of DIR/NAME,
// `POST /NAME` reads the request body and answers 201 with them. The files are read once at start.
// No middleware, no logging per request: the HTTP stack alone.

var port = 8090
var host = "127.0.0.1"
var bodiesPath = "."
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--port": port = Int(arguments.next() ?? "") ?? port
    case "--host": host = arguments.next() ?? host
    case "--bodies": bodiesPath = arguments.next() ?? bodiesPath
    default:
        FileHandle.standardError.write(Data("usage: ceiling [--host H] [--port N] [--bodies DIR]\n".utf8))
        exit(2)
    }
}

var bodies: [String: ByteBuffer] = [:]
let directory = URL(fileURLWithPath: bodiesPath, isDirectory: true)
for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] {
    guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else { continue }
    bodies[name] = ByteBuffer(bytes: data)
}
let constantBodies = bodies

var headers = HTTPFields()
headers[.contentType] = "application/json;charset=utf-8"
headers[HTTPField.Name("DataServiceVersion")!] = "2.0;"
let responseHeaders = headers

let router = Router()
router.get(":name") { _, context -> Response in
    guard let name = context.parameters.get("name"), let body = constantBodies[name] else {
        return Response(status: .notFound)
    }
    return Response(status: .ok, headers: responseHeaders, body: ResponseBody(byteBuffer: body))
}
router.post(":name") { request, context -> Response in
    _ = try await request.body.collect(upTo: 16 * 1024 * 1024)
    guard let name = context.parameters.get("name"), let body = constantBodies[name] else {
        return Response(status: .notFound)
    }
    return Response(status: .created, headers: responseHeaders, body: ResponseBody(byteBuffer: body))
}

var logger = Logger(label: "ceiling")
logger.logLevel = .warning
let app = Application(
    router: router,
    configuration: .init(address: .hostname(host, port: port), serverName: "Ceiling"),
    logger: logger)
print("ceiling: \(constantBodies.count) bodies on http://\(host):\(port)/")
try await app.runService()
