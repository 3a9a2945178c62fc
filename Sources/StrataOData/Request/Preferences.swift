import HTTPTypes
import StrataCore

extension HTTPFields {
    /// The preferences of the request's `Prefer` headers (RFC 7240), each as written
    /// (`return=minimal`, `odata.maxpagesize=50;x=1`), trimmed and lowercased, in order.
    package var preferences: [String] {
        self[values: DeltaRequest.preferHeader].flatMap { $0.split(separator: ",") }.map { String($0).trimmingWhitespace().lowercased() }
    }

    /// Each preference's name and value, without its parameters: `odata.track-changes` and nil for
    /// `odata.track-changes;x=1`, `odata.continue-on-error` and `false` for `odata.continue-on-error=false`.
    package var preferenceTokens: [(name: String, value: String?)] {
        preferences.map { preference in
            let token = preference.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
            let parts = token.split(separator: "=", maxSplits: 1)
            return (parts.first.map { String($0).trimmingWhitespace() } ?? "", parts.dropFirst().first.map { String($0).trimmingWhitespace() })
        }
    }
}
