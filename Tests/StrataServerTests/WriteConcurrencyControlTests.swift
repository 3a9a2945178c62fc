import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StrataCore
import Testing

/// ETags and optimistic concurrency: the tag on reads, conditional GET, If-Match on changes, and the
/// per-service If-Match requirement.
@Suite("Write ETags")
struct WriteConcurrencyControlTests {
    @Test("Every entity has an ETag; a single-entity GET sends it as a header", arguments: Backend.allCases)
    func tags(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let person = try await client.get("/cardealer/Person(1)")
            let tag = try #require(person.headers[.eTag])
            #expect(tag.hasPrefix("\"") && tag.hasSuffix("\"") && tag.count == 24)
            #expect(person.json["d"]["__metadata"]["etag"]?.stringValue == tag)
            let collection = try await client.get("/cardealer/Person?$top=3")
            let entries = collection.json["d"]["results"]?.arrayValue ?? []
            #expect(entries.count == 3)
            #expect(entries[0]["__metadata"]["etag"]?.stringValue == tag)
            #expect(Set(entries.compactMap { $0["__metadata"]["etag"]?.stringValue }).count == 3)
            // Expanded-by-navigation reads carry tags too.
            let car = try await client.get("/cardealer/PersonCar(2)/Car")
            #expect(car.headers[.eTag] == car.json["d"]["__metadata"]["etag"]?.stringValue)
        }
    }

    @Test("If-None-Match with the current tag answers 304; after a change, 200 with the new tag", arguments: Backend.allCases)
    func conditionalGet(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let tag = try #require(try await client.get("/cardealer/Person(1)").headers[.eTag])
            let notModified = try await client.get("/cardealer/Person(1)", headers: [.ifNoneMatch: tag])
            #expect(notModified.status == .notModified)
            #expect(notModified.headers[.eTag] == tag)
            #expect(notModified.body.readableBytes == 0)
            #expect(try await client.get("/cardealer/Person(1)", headers: [.ifNoneMatch: "W/\(tag)"]).status == .notModified)
            #expect(try await client.get("/cardealer/Person(1)", headers: [.ifNoneMatch: "*"]).status == .notModified)

            #expect(try await client.merge("/cardealer/Person(1)", #"{"ssn":"999"}"#).status == .noContent)
            let changed = try await client.get("/cardealer/Person(1)", headers: [.ifNoneMatch: tag])
            #expect(changed.status == .ok)
            #expect(changed.headers[.eTag] != tag)
            #expect(try await client.get("/cardealer/Person(1)", headers: [.ifNoneMatch: "not-quoted"]).status == .badRequest)
        }
    }

    @Test("If-Match: a stale tag is 412 and changes nothing; the current tag or * succeeds", arguments: Backend.allCases)
    func ifMatch(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let original = try #require(try await client.get("/cardealer/Person(1)").headers[.eTag])
            let updated = try await client.merge("/cardealer/Person(1)", #"{"firstName":"Rob"}"#, headers: [.ifMatch: original])
            #expect(updated.status == .noContent)
            let current = try #require(updated.headers[.eTag])
            #expect(current != original)
            #expect(try await client.get("/cardealer/Person(1)").headers[.eTag] == current)

            try await client.expectRefused(.preconditionFailed, code: "PreconditionFailed", unchanged: ["/cardealer/Person(1)"]) {
                try await client.merge("/cardealer/Person(1)", #"{"firstName":"Lost update"}"#, headers: [.ifMatch: original])
            }
            try await client.expectRefused(.preconditionFailed, unchanged: ["/cardealer/Person(1)"]) {
                try await client.put("/cardealer/Person(1)", #"{"firstName":"Lost","lastName":"Update"}"#, headers: [.ifMatch: original])
            }
            try await client.expectRefused(.preconditionFailed, unchanged: ["/cardealer/Person(1)"]) {
                try await client.delete("/cardealer/Person(1)", headers: [.ifMatch: original])
            }
            try await client.expectRefused(.badRequest, unchanged: ["/cardealer/Person(1)"]) {
                try await client.merge("/cardealer/Person(1)", #"{"firstName":"X"}"#, headers: [.ifMatch: "unquoted"])
            }
            #expect(try await client.merge("/cardealer/Person(1)", #"{"firstName":"Bob"}"#, headers: [.ifMatch: "\"other\", \(current)"]).status == .noContent)
            #expect(try await client.merge("/cardealer/Person(1)", #"{"lastName":"S"}"#, headers: [.ifMatch: "*"]).status == .noContent)

            let temp = try await client.post("/cardealer/Person", #"{"firstName":"T","lastName":"T"}"#)
            let uri = try #require(temp.headers[.location]).replacingOccurrences(of: "http://localhost", with: "")
            #expect(try await client.delete(uri, headers: [.ifMatch: try #require(temp.headers[.eTag])]).status == .noContent)
        }
    }

    @Test("A service that requires If-Match refuses changes without it with 428", arguments: Backend.allCases)
    func required(_ backend: Backend) async throws {
        try await withWriteServer(backend, requireIfMatch: ["cardealer"]) { client in
            try await client.expectRefused(HTTPResponse.Status(code: 428), code: "PreconditionRequired", unchanged: ["/cardealer/Person(1)"]) {
                try await client.merge("/cardealer/Person(1)", #"{"firstName":"X"}"#)
            }
            try await client.expectRefused(HTTPResponse.Status(code: 428), unchanged: ["/cardealer/Person(1)"]) {
                try await client.delete("/cardealer/Person(1)")
            }
            let tag = try #require(try await client.get("/cardealer/Person(1)").headers[.eTag])
            #expect(try await client.merge("/cardealer/Person(1)", #"{"firstName":"X"}"#, headers: [.ifMatch: tag]).status == .noContent)
            // Creating needs no tag, and other services are not affected.
            #expect(try await client.post("/cardealer/Person", #"{"firstName":"A","lastName":"B"}"#).status == .created)
            #expect(try await client.merge("/ledger/Counters(1)", #"{"value":3}"#).status == .noContent)
        }
    }
}
