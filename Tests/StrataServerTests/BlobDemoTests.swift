import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
@testable import StrataCore
@testable import StrataDemo
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// `--demo`'s `speakers` container: a picture per speaker of seed 001, where the rows point.
@Suite("Blobs: demo speakers")
struct BlobDemoTests {
    @Test("Every speaker's ImageUrl is a public JPEG in the speakers container, the same bytes on every start", arguments: Backend.allCases)
    func speakers(_ backend: Backend) async throws {
        try await withServer(backend, configure: { $0.demo = true }) { client in
            let rows = try await client.get("/speakeasy/Speakers?$select=Name,ImageUrl").json["d"]["results"]?.arrayValue ?? []
            #expect(rows.count == 8)
            let container = try await client.get("/blobs/speakers", headers: [.authorization: "Bearer none"])
            #expect(container.status == .unauthorized, "a bad token is refused even where anonymous reads are allowed")
            let anonymous = try #require((client as? AdministratorTestClient)?.base)
            for row in rows {
                let name = try #require(row["Name"]?.stringValue), url = try #require(row["ImageUrl"]?.stringValue)
                let picture = try await anonymous.get(url)
                #expect(picture.status == .ok, "\(url)")
                #expect(picture.headers[.contentType] == "image/jpeg")
                let expected = picture.bytes == SpeakerPortrait.jpeg(for: name)
                #expect(expected, "\(url) is not \(name)'s picture")
                try JPEGStructure.check(picture.bytes)
            }
            #expect(rows.contains { $0["ImageUrl"]?.stringValue == "/blobs/speakers/BTubalinal.jpg" })
            let listing = try await client.get("/blobs/speakers").json
            #expect(listing["access"] == .string("public-read"))
            #expect(listing["blobs"]?.arrayValue?.count == 8)
        }
    }

    @Test("Pictures: initials from the name, deterministic bytes, a well-formed baseline JPEG of 128×128")
    func portraits() throws {
        #expect(SpeakerPortrait.initials(of: "Bart Tubalinal") == "BT")
        #expect(SpeakerPortrait.initials(of: "Élodie  de la Tour") == "ET")
        #expect(SpeakerPortrait.initials(of: "Plato") == "P")
        #expect(SpeakerPortrait.initials(of: "") == "?")
        let jpeg = SpeakerPortrait.jpeg(for: "Bart Tubalinal")
        #expect(jpeg == SpeakerPortrait.jpeg(for: "Bart Tubalinal"))
        #expect(jpeg != SpeakerPortrait.jpeg(for: "Bert Johnson"))
        let frame = try JPEGStructure.check(jpeg)
        #expect(frame.width == 128 && frame.height == 128 && frame.components == 3)
        // A flat grey image compresses to almost nothing: every block is DC only.
        let grey = JPEGEncoder().encode(width: 16, height: 8, rgb: [UInt8](repeating: 128, count: 16 * 8 * 3))
        #expect(try JPEGStructure.check(grey).width == 16)
        #expect(JPEGEncoder.category(-5) == 3 && JPEGEncoder.amplitude(-5, category: 3) == 2)
    }
}

/// Walks a JPEG's segments as a decoder would: SOI, marker segments with their lengths, one
/// baseline frame, a scan whose data stuffs every 0xFF, EOI at the very end.
enum JPEGStructure {
    struct Frame { var width: Int; var height: Int; var components: Int }
    struct Malformed: Error, CustomStringConvertible { var description: String }

    @discardableResult
    static func check(_ bytes: [UInt8]) throws -> Frame {
        guard bytes.starts(with: [0xFF, 0xD8]) else { throw Malformed(description: "no SOI") }
        var i = 2
        var frame: Frame?
        var tables: Set<UInt8> = []
        while i + 4 <= bytes.count {
            guard bytes[i] == 0xFF else { throw Malformed(description: "no marker at \(i)") }
            let marker = bytes[i + 1]
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            let payload = Array(bytes[(i + 4)..<min(bytes.count, i + 2 + length)])
            switch marker {
            case 0xC0:
                frame = Frame(width: Int(payload[3]) << 8 | Int(payload[4]), height: Int(payload[1]) << 8 | Int(payload[2]),
                              components: Int(payload[5]))
            case 0xC4:
                var j = 0
                while j < payload.count {
                    tables.insert(payload[j])
                    j += 17 + payload[(j + 1)...(j + 16)].reduce(0) { $0 + Int($1) }
                }
                guard j == payload.count else { throw Malformed(description: "DHT lengths do not add up") }
            case 0xDA:
                guard frame != nil, tables == [0x00, 0x01, 0x10, 0x11] else { throw Malformed(description: "scan before frame or tables") }
                var k = i + 2 + length
                while k < bytes.count - 2 {
                    if bytes[k] == 0xFF {
                        guard bytes[k + 1] == 0 else { throw Malformed(description: "unstuffed 0xFF in the scan at \(k)") }
                        k += 1
                    }
                    k += 1
                }
                guard bytes.suffix(2) == [0xFF, 0xD9] else { throw Malformed(description: "no EOI") }
                return frame!
            default:
                break
            }
            i += 2 + length
        }
        throw Malformed(description: "no scan")
    }
}
