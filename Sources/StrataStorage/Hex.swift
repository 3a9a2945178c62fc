/// Lowercase hexadecimal text of bytes: the form digests take in the blob catalog, ETags and the
/// names of prepared statements. Here, below Storage, so that every layer can use it.
package enum Hex {
    package static func lowercase(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
