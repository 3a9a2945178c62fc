import Foundation
import HTTPTypes
import HummingbirdTesting
import StrataCore
import StrataDemo
import Testing

/// Random and mutated query strings and paths thrown at a running server: it must answer every one
/// with 200 or a 4xx OData error, never a 500 and never a crash.
@Suite("Query fuzzing")
struct QueryFuzzTests {
    static let seeds = [
        "$filter=lastName eq 'Samson'", "$filter=startswith(lastName,'O''') and personID gt 10",
        "$orderby=lastName desc,firstName&$top=5&$skip=3", "$select=firstName,PersonCar&$expand=PersonCar/Car",
        "$filter=year(createDate) ge 2010 or substringof('a',firstName)", "$inlinecount=allpages&$top=1",
        "$filter=PersonCar/any()", "$filter=length(ssn) div 0 eq 1", "$expand=PersonCar/PersonCarMaintenance/Maintenance",
        "$filter=personID mod 7 eq 3 and not (ssn eq null)", "$skiptoken=5", "$format=json",
    ]
    static let fragments = [
        " eq ", " ne ", " and ", " or ", "not ", "(", ")", "'", "''", ",", "/", "$", "&", "=", "%", "%2", "%ZZ", "+",
        "null", "true", "9999999999999999999999", "-", "1.5M", "2L", "1E309", "datetime'", "datetime'2009-13-45T99:99'",
        "guid'x'", "X'0'", "time'PT'", "substring(", "cast(", "isof(", "firstName", "PersonCar", "Car/make", "\u{0}",
        "😀", "\\", "\"", ";DROP TABLE \"Person\";--", "$top=", "$skip=-1", "$filter=", "$orderby=", "$expand=",
    ]
    static let paths = [
        "/cardealer/Person", "/cardealer/Person(1)", "/cardealer/Person(1)/PersonCar", "/cardealer/PersonCar(1)/Car",
        "/cardealer/Person/$count", "/cardealer/Person(1)/$links/PersonCar", "/speakeasy/Events",
        "/cardealer/Person(1)/firstName", "/hockey/Players",
    ]

    static func mutate(_ text: String, _ random: inout SplitMix64) -> String {
        var characters = Array(text)
        for _ in 0..<(1 + random.below(3)) {
            switch random.below(5) {
            case 0 where !characters.isEmpty:
                characters.remove(at: random.below(characters.count))
            case 1:
                characters.insert(contentsOf: random.pick(fragments), at: random.below(characters.count + 1))
            case 2 where !characters.isEmpty:
                characters = Array(characters.prefix(random.below(characters.count)))
            case 3:
                characters.append(contentsOf: String(repeating: random.pick(["(", ")", "'", " or x"]), count: 1 + random.below(80)))
            default:
                characters.insert(Character(Unicode.Scalar(UInt8(random.below(128)))), at: random.below(characters.count + 1))
            }
        }
        return String(characters)
    }

    @Test("Mutated queries on every kind of resource: only 200 and 4xx", arguments: Backend.allCases)
    func fuzz(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            var random = SplitMix64(seed: backend == .sqlite ? 20_261_123 : 11_232_026)
            var statuses: [UInt: Int] = [:]
            for _ in 0..<400 {
                let path = random.pick(Self.paths)
                let query = Self.mutate(random.pick(Self.seeds), &random)
                // Encode what a client would have to encode; keep '%' so that bad escapes reach the server too.
                let encoded = query.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(CharacterSet(charactersIn: "+#"))) ?? ""
                let response = try await client.get("\(path)?\(encoded)")
                statuses[UInt(response.status.code), default: 0] += 1
                #expect(response.status.code < 500, "\(path)?\(query): \(response.status) \(response.text.prefix(200))")
                if response.status.code >= 400 {
                    #expect(response.odataError != nil, "\(path)?\(query): no OData error body")
                }
            }
            // The corpus must exercise both outcomes, or the test proves nothing.
            #expect(statuses[200, default: 0] > 20)
            #expect(statuses[400, default: 0] > 100)
        }
    }
}

extension SplitMix64 {
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}
