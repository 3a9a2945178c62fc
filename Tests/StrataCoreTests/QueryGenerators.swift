import Foundation
import StrataCore
import StrataDemo

/// The fuzz tests' draws from the shared seeded generator, so that every run sees the same inputs
/// and a failure can be reproduced from its seed.
extension SplitMix64 {
    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }
}

/// Random *valid* query ASTs: every value here has a V2 text form, so printing and parsing it must give
/// it back exactly. (Byte, SByte and Int16 literals have none, and NaN is not equal to itself.)
struct QueryASTGenerator {
    var random: SplitMix64

    static let reserved: Set<String> = Set(BinaryOperator.allCases.map(\.keyword)).union([
        "not", "null", "true", "false", "NaN", "NaNd", "NaND", "NaNf", "NaNF", "INF", "INFd", "INFD", "INFf", "INFF",
    ])

    mutating func identifier() -> String {
        let first = Array("abcxyzABCXYZ_éß")
        let rest = first + Array("0123456789")
        while true {
            var name = String(random.pick(first))
            for _ in 0..<random.int(0...7) { name.append(random.pick(rest)) }
            if !Self.reserved.contains(name) { return name }
        }
    }

    mutating func text(maxLength: Int = 12) -> String {
        let alphabet: [Character] = Array("ab Z09'''\"&=+%#?/\\,()$*:;@!-_.~\t\n") + ["é", "\u{301}", "日", "🚗", "\u{0}", "\u{FEFF}"]
        var text = ""
        for _ in 0..<random.int(0...maxLength) { text.unicodeScalars.append(contentsOf: random.pick(alphabet).unicodeScalars) }
        return text
    }

    mutating func path(maxSegments: Int = 3) -> PropertyPath {
        PropertyPath((0..<random.int(1...maxSegments)).map { _ in identifier() })
    }

    mutating func literal() -> ODataValue {
        switch random.int(0...15) {
        case 0: return .null
        case 1: return .boolean(random.chance(50))
        case 2: return .int32(Int32(truncatingIfNeeded: random.next()))
        case 3: return .int64(Int64(truncatingIfNeeded: random.next()))
        case 4: return .int32(Int32(random.int(-3...3)))
        case 5:
            let significand = Decimal(random.int(0...999_999_999_999))
            return .decimal(Decimal(sign: random.chance(50) ? .minus : .plus, exponent: random.int(-10...5), significand: significand))
        case 6:
            let value = Double(bitPattern: random.next())
            return .double(value.isNaN ? 1.5 : value)
        case 7: return .double(random.pick([0, 1.5, -2.25, 1e15, 1e-300, .infinity, -.infinity, 123_456_789]))
        case 8:
            let value = Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))
            return .single(value.isNaN ? 0.5 : value)
        case 9: return .string(text())
        case 10:
            return .dateTime(ODataDateTime(year: random.int(2...9998), month: random.int(1...12), day: random.int(1...28),
                                           hour: random.int(0...23), minute: random.int(0...59), second: random.int(0...59),
                                           microsecond: random.pick([0, 123_000, random.int(0...999_999)]))!)
        case 11:
            let utc = ODataDateTime(year: random.int(2...9998), month: random.int(1...12), day: random.int(1...28),
                                    hour: random.int(0...23), minute: random.int(0...59), second: random.int(0...59))!
            return .dateTimeOffset(ODataDateTimeOffset(utc: utc, offsetMinutes: random.pick([0, 120, -330, random.int(-1439...1439)])))
        case 12: return .time(ODataTime(microseconds: Int64(random.int(0...86_399_999_999)))!)
        case 13:
            let hex = (0..<32).map { _ in String(random.int(0...15), radix: 16) }.joined()
            let formatted = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
            return .guid(UUID(uuidString: formatted.joined(separator: "-"))!)
        case 14: return .binary(Data((0..<random.int(0...6)).map { _ in UInt8(random.int(0...255)) }))
        default: return .string(random.pick(["", "'", "O'Brien", "a b"]))
        }
    }

    mutating func expression(depth: Int) -> QueryExpression {
        if depth == 0 || random.chance(25) {
            return random.chance(50) ? .literal(literal()) : .property(path())
        }
        switch random.int(0...9) {
        case 0...3:
            return .binary(random.pick(BinaryOperator.allCases), expression(depth: depth - 1), expression(depth: depth - 1))
        case 4, 5:
            return .unary(random.pick(UnaryOperator.allCases), expression(depth: depth - 1))
        case 6, 7:
            let function = random.pick(QueryFunction.functions(in: .v2))
            let count = random.int(function.arity.lowerBound...function.arity.upperBound)
            return .call(function, (0..<count).map { _ in expression(depth: depth - 1) })
        case 8:
            return .isOf(random.chance(70) ? expression(depth: depth - 1) : nil, typeName: random.chance(70) ? "Edm.Int32" : text())
        default:
            return .cast(random.chance(70) ? expression(depth: depth - 1) : nil, typeName: random.chance(70) ? "Edm.Int64" : text())
        }
    }

    mutating func options() -> QueryOptions {
        var options = QueryOptions()
        if random.chance(70) { options.filter = expression(depth: 5) }
        if random.chance(50) {
            options.orderBy = (0..<random.int(1...3)).map { _ in OrderByItem(expression(depth: 2), random.pick(SortDirection.allCases)) }
        }
        if random.chance(40) { options.top = random.int(0...10_000) }
        if random.chance(40) { options.skip = random.int(0...Int.max) }
        if random.chance(40) {
            options.select = (0..<random.int(1...3)).map { _ in
                random.chance(20) ? .all : SelectItem(path(), isWildcard: random.chance(30))
            }
        }
        if random.chance(40) { options.expand = (0..<random.int(1...3)).map { _ in path() } }
        if random.chance(30) { options.inlineCount = random.pick(InlineCount.allCases) }
        if random.chance(30) { options.skipToken = "t" + text() }
        if random.chance(30) { options.format = random.pick(["json", "atom", "x" + text()]) }
        if random.chance(30) {
            options.customOptions = (0..<random.int(1...3)).map { _ in CustomQueryOption(name: "c" + text(), value: text()) }
        }
        return options
    }
}
