import Foundation
import HTTPTypes
import StrataDemo

/// Random JSON bodies for the endpoints that read JSON: entity inserts and updates, `$changes`,
/// `$sql` and `/auth/token`. Property names are mostly real, values of every JSON kind and at the
/// edges (numbers past every range, dates past year 9999, lone surrogates, NULs, deep nesting,
/// repeated names); a share is then cut or has bytes flipped.
struct FuzzJSONGenerator {
    static let properties = ["personID", "firstName", "lastName", "ssn", "createDate", "PersonCar", "__metadata", "carID", "make", "nope", ""]
    static let strings = [#""""#, #""Ann""#, #""\u0000""#, #""\ud800""#, #""\/Date(0)\/""#, #""\/Date(-99999999999999)\/""#,
                          #""\/Date(253402300800000)\/""#, #""2009-13-45T25:61:00""#, #""9223372036854775808""#, #""NaN""#,
                          "\"\(String(repeating: "z", count: 2_000))\"", #""😀""#, #""\u00e9""#]
    static let numbers = ["0", "-0", "1", "2147483648", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
                          "1e400", "-1e400", "1.5e-400", "1.0", "12345678901234567890123456789"]

    func request(_ random: inout SplitMix64) -> FuzzRequest {
        var target: (HTTPRequest.Method, String, String)
        switch random.below(6) {
        case 0: target = (.post, "/cardealer/Person", entity(&random))
        case 1: target = (random.pick([.put, .patch, HTTPRequest.Method("MERGE")!]), "/cardealer/Person(\(random.pick(["1", "2", "999"])))", entity(&random))
        case 2: target = (.post, "/cardealer/$changes", changes(&random))
        case 3: target = (.post, "/cardealer/$sql", #"{"sql":\#(random.chance(70) ? #""SELECT personID FROM Person LIMIT 2""# : value(0, &random)),"parameters":\#(object(1, &random))}"#)
        case 4: target = (.post, "/auth/token", #"{"username":\#(value(1, &random)),"password":\#(value(1, &random)),"grant_type":\#(random.pick([#""password""#, #""refresh_token""#, value(1, &random)]))}"#)
        default: target = (.post, "/cardealer/Car", value(0, &random))
        }
        var bytes = Array(target.2.utf8)
        if random.chance(15), !bytes.isEmpty { bytes.removeLast(1 + random.below(bytes.count)) }
        if random.chance(10), !bytes.isEmpty { bytes[random.below(bytes.count)] = UInt8(truncatingIfNeeded: random.next()) }
        return FuzzRequest(method: target.0, uri: target.1, headers: [.contentType: "application/json"], body: bytes)
    }

    func entity(_ random: inout SplitMix64) -> String {
        var members: [String] = []
        for _ in 0..<(random.below(6) + 1) {
            let name = random.pick(Self.properties)
            let value: String
            switch name {
            case "firstName", "lastName", "ssn", "make": value = random.chance(70) ? random.pick(Self.strings) : self.value(1, &random)
            case "createDate": value = random.chance(80) ? random.pick(Array(Self.strings[3...8])) : self.value(1, &random)
            case "personID", "carID": value = random.chance(70) ? random.pick(Self.numbers) : self.value(1, &random)
            case "PersonCar": value = #"[{"carID":\#(random.pick(Self.numbers))}]"#
            default: value = self.value(1, &random)
            }
            members.append("\"\(name)\":\(value)")
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    func changes(_ random: inout SplitMix64) -> String {
        let items = (0..<(1 + random.below(4))).map { index in
            let kind = random.pick(["insert", "update", "delete", "upsert"])
            let table = random.pick(["Person", "Car", "PersonCar", "Nope"])
            let key = random.chance(50) ? #"{"personID":\#(random.pick(["-1", "-2", "1", "0", "null"]))}"# : object(1, &random)
            return #"{"id":"\#(index)","table":"\#(table)","kind":"\#(kind)","key":\#(key),"values":\#(random.chance(60) ? entity(&random) : value(1, &random))}"#
        }
        return #"{"changes":[\#(items.joined(separator: ","))]\#(random.chance(20) ? #","mode":"\#(random.pick(["all", "each", "x"]))""# : "")}"#
    }

    func object(_ depth: Int, _ random: inout SplitMix64) -> String {
        let members = (0..<random.below(4)).map { _ in "\"\(random.pick(Self.properties + ["i", "l", "s"]))\":\(value(depth + 1, &random))" }
        return "{" + members.joined(separator: ",") + "}"
    }

    func value(_ depth: Int, _ random: inout SplitMix64) -> String {
        switch depth > 3 ? random.below(4) : random.below(7) {
        case 0: return random.pick(Self.strings)
        case 1: return random.pick(Self.numbers)
        case 2: return random.pick(["true", "false", "null"])
        case 3: return random.chance(5) ? String(repeating: "[", count: 600) + String(repeating: "]", count: 600) : "[]"
        case 4: return "[" + (0..<random.below(3)).map { _ in value(depth + 1, &random) }.joined(separator: ",") + "]"
        default: return object(depth, &random)
        }
    }
}
