import StrataCore

/// The names containers and blobs may have.
///
/// Container names follow S3 and Azure (3–63 lowercase letters, digits and `-`, starting with a
/// letter or digit) so that a container can later map onto a bucket of an S3-compatible store
/// unchanged. Blob names are free text as in S3 (up to 1,024 UTF-8 bytes, `/` allowed) except for
/// what cannot travel in a URL path reliably: control characters, and `.`/`..` segments, which
/// HTTP clients remove before sending.
package enum BlobNames {
    static let maximumNameBytes = 1024

    package static func checkContainer(_ name: String) throws(ODataError) {
        let scalars = Array(name.unicodeScalars)
        guard (3...63).contains(scalars.count),
              scalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }),
              scalars.first != "-" else {
            throw .badRequest("A container name has 3 to 63 lowercase letters, digits or '-', and starts with a letter or digit; '\(name.prefix(80))' does not.",
                              code: "InvalidContainerName")
        }
    }

    package static func checkBlob(_ name: String) throws(ODataError) {
        guard !name.isEmpty, name.utf8.count <= maximumNameBytes else {
            throw .badRequest("A blob name has 1 to \(maximumNameBytes) bytes of UTF-8.", code: "InvalidBlobName")
        }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .badRequest("A blob name may not contain control characters.", code: "InvalidBlobName")
        }
        guard !name.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == "." || $0 == ".." }) else {
            throw .badRequest("A blob name may not have '.' or '..' segments; HTTP clients remove them from URLs.", code: "InvalidBlobName")
        }
    }

    /// The least string greater than every string that starts with `prefix`, for a range scan
    /// (`name >= prefix AND name < successor`): the prefix with its last scalar incremented.
    /// Nil when no such string exists (every scalar is the largest), and the scan has no upper end.
    static func successor(ofPrefix prefix: String) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            var next = last.value + 1
            // UTF-8 cannot encode surrogates; the scalar after U+D7FF is U+E000.
            if (0xD800...0xDFFF).contains(next) { next = 0xE000 }
            if let scalar = Unicode.Scalar(next) {
                scalars.append(scalar)
                var view = String.UnicodeScalarView()
                view.append(contentsOf: scalars)
                return String(view)
            }
        }
        return nil
    }
}
