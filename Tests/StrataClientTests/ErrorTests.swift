import Foundation
import StrataClient
import Testing

@Suite("Errors")
struct ErrorTests {
    @Test("404 carries the OData code and message")
    func notFound() async throws {
        let service = try await LiveServer.shared().service("cardealer")
        do {
            _ = try await service.set("Person").key(99999).get()
            Issue.record("a missing person was found")
        } catch {
            #expect(error.kind == .notFound)
            #expect(error.status == 404)
            #expect(error.code == "ResourceNotFound")
            #expect(error.message.contains("Person(99999)"))
            #expect(error.method == .get)
            #expect(error.description.hasPrefix("404 ResourceNotFound: "))
            #expect(error.description.hasSuffix("(GET \(try service.set("Person").key(99999).url().absoluteString))"))
        }
    }

    @Test("400 for a malformed option, and for an unknown service a 404")
    func badRequest() async throws {
        let server = try await LiveServer.shared()
        do {
            _ = try await server.service("cardealer").set("Person").top(-1).all()
            Issue.record("$top=-1 was accepted")
        } catch {
            #expect(error.kind == .badRequest)
            #expect(error.code == "BadRequest")
            #expect(error.message.contains("$top"))
        }
        do {
            _ = try await server.service("nosuchservice").set("Person").all()
            Issue.record("an unknown service answered")
        } catch {
            #expect(error.kind == .notFound)
            #expect(error.message.contains("nosuchservice"))
        }
    }

    @Test("Asking for one entity from a collection URL, or for a collection from an entity URL, says so")
    func wrongShape() async throws {
        let service = try await LiveServer.shared().service("cardealer")
        await #expect(throws: StrataError.self) { try await service.set("Person").top(2).get() }
        do {
            _ = try await service.set("Person").key(1).all()
            Issue.record("one entity read as a collection")
        } catch {
            #expect(error.kind == .invalidResponse)
            #expect(error.message.contains("single entity"))
        }
    }

    @Test("A refused connection is a transport error naming the host")
    func refused() async throws {
        let port = try closedPort()
        let service = DataService(url: URL(string: "http://127.0.0.1:\(port)/cardealer/")!)
        do {
            _ = try await service.set("Person").all()
            Issue.record("a closed port answered")
        } catch {
            #expect(error.kind == .transport)
            #expect(error.status == nil)
            #expect(error.underlying != nil)
            // One sentence and the request, not Foundation's dump of the underlying error.
            #expect(error.description == "network error: Could not connect to 127.0.0.1; is it running? (GET http://127.0.0.1:\(port)/cardealer/Person)",
                    "\(error)")
        }
    }

    @Test("An error body that is not OData still gives a readable error")
    func plainBody() {
        let response = StrataResponse(status: 502, headers: [:], body: Data("Bad gateway\n".utf8), url: URL(string: "http://h/x")!)
        let error = StrataError(response: response)
        #expect(error.kind == .server)
        #expect(error.code == nil)
        #expect(error.message == "Bad gateway")
        #expect(error.description == "502 Bad gateway (http://h/x)")
    }
}
