import Foundation

/// Unpadded base64url (RFC 4648 §5), as ETags, tokens and JWT parts use it.
///
/// Written over bytes: Foundation's `replacingOccurrences` goes through NSString on Linux, which
/// cost a GET by key more than its SQL did (benchmarks, issue 10). Inlinable, so that the server's
/// hot paths get it specialized across the module boundary.
public enum Base64URL {
    @usableFromInline static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The bytes as unpadded base64url text.
    @inlinable
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        let length = (input.count * 4 + 2) / 3
        return String(unsafeUninitializedCapacity: max(length, 1)) { output in
            var out = 0
            var index = 0
            while index + 3 <= input.count {
                let value = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                output[out] = alphabet[Int(value >> 18 & 63)]
                output[out + 1] = alphabet[Int(value >> 12 & 63)]
                output[out + 2] = alphabet[Int(value >> 6 & 63)]
                output[out + 3] = alphabet[Int(value & 63)]
                out += 4
                index += 3
            }
            let rest = input.count - index
            if rest > 0 {
                let value = UInt32(input[index]) << 16 | (rest == 2 ? UInt32(input[index + 1]) << 8 : 0)
                output[out] = alphabet[Int(value >> 18 & 63)]
                output[out + 1] = alphabet[Int(value >> 12 & 63)]
                out += 2
                if rest == 2 {
                    output[out] = alphabet[Int(value >> 6 & 63)]
                    out += 1
                }
            }
            return out
        }
    }

    /// The bytes of unpadded base64url text; nil for anything else (padding, other characters,
    /// an impossible length).
    @inlinable
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var values: [UInt8] = []
        values.reserveCapacity(text.utf8.count)
        for character in text.utf8 {
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): values.append(character - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): values.append(character - UInt8(ascii: "a") + 26)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): values.append(character - UInt8(ascii: "0") + 52)
            case UInt8(ascii: "-"): values.append(62)
            case UInt8(ascii: "_"): values.append(63)
            default: return nil
            }
        }
        guard values.count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.count * 3 / 4)
        var index = 0
        while index < values.count {
            let count = min(4, values.count - index)
            var value: UInt32 = 0
            for offset in 0..<4 {
                value = value << 6 | (offset < count ? UInt32(values[index + offset]) : 0)
            }
            bytes.append(UInt8(value >> 16 & 0xFF))
            if count > 2 { bytes.append(UInt8(value >> 8 & 0xFF)) }
            if count > 3 { bytes.append(UInt8(value & 0xFF)) }
            index += 4
        }
        return bytes
    }
}
