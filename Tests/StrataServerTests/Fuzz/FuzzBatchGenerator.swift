import Foundation
import HTTPTypes
import StrataDemo

/// Random `$batch` bodies: queries and change sets of every method against real and bogus URLs,
/// Content-IDs (some repeated), `$n` references (some dangling), absolute URLs to this host and
/// others, and framing that is sometimes broken (cut short, flipped bytes, wrong boundaries).
struct FuzzBatchGenerator {
    static let urls = ["Person", "Person(1)", "Person(999)", "Car?$filter=carID%20gt%20\(Int64.max)", "$1", "$2/PersonCar", "$9",
                       "/cardealer/Car(1)", "http://localhost/cardealer/Person(2)", "http://evil.example/cardealer/Person",
                       "Person(1)/$links/PersonCar", "Nope(1)", "$batch", "Person?$top=2&$skip=1", "Person(1)/firstName/$value", ""]
    static let methods = ["GET", "POST", "PUT", "MERGE", "PATCH", "DELETE", "HEAD", "BREW"]

    func request(_ random: inout SplitMix64) -> FuzzRequest {
        let json = FuzzJSONGenerator()
        var items: [BatchBody.Item] = []
        var ids = 0
        for _ in 0..<(1 + random.below(4)) {
            if random.chance(40) {
                items.append(.query(random.pick(Self.urls)))
            } else {
                let changes = (0..<(1 + random.below(4))).map { _ -> BatchBody.Change in
                    ids += 1
                    let id = random.chance(20) ? "1" : String(ids)
                    return .init(method: random.pick(Self.methods), url: random.pick(Self.urls),
                                 body: random.chance(70) ? json.entity(&random) : nil,
                                 contentID: random.chance(70) ? id : nil,
                                 headers: random.chance(10) ? ["If-Match: \(random.pick(["*", "W/\"x\"", "\"\""]))"] : [])
                }
                items.append(.changeSet(changes))
            }
        }
        let batch = BatchBody(items: items)
        var bytes = Array(batch.text.utf8)
        if random.chance(15) { bytes.removeLast(random.below(bytes.count)) }
        if random.chance(10), !bytes.isEmpty { bytes[random.below(bytes.count)] = UInt8(truncatingIfNeeded: random.next()) }
        let contentType = random.chance(90) ? batch.contentType : random.pick(["multipart/mixed", "application/json", "multipart/mixed; boundary=\"\""])
        return FuzzRequest(method: .post, uri: "/cardealer/$batch", headers: [.contentType: contentType], body: bytes)
    }
}
