import StrataCore
import StrataSQL

extension SQLRows {
    /// About how many bytes a row's values take: the UTF-8 of text, the bytes of binary data, and
    /// 16 for every other value. What ``StatementLimits/maxResultBytes`` counts.
    static func bytes(of values: [ODataValue]) -> Int {
        var total = 0
        for value in values {
            switch value {
            case .string(let text): total += 16 + text.utf8.count
            case .binary(let data): total += 16 + data.count
            default: total += 16
            }
        }
        return total
    }
}
