import HTTPTypes
import StrataCore

/// What a read asks of the change feed: a delta link to be issued (`Prefer: odata.track-changes`
/// on the first read, or `!deltastart` on its later pages), or the changes since a token
/// (`!deltatoken`). SAP Gateway's and Olingo's V2 option names; the V4 preference, which SAP's V2
/// services accept too.
package struct DeltaRequest: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// A first read that wants a delta link on its last page.
        case track
        /// A later page of such a read; the token holds the cursor taken at its first page.
        case start(String)
        /// The changes since the token.
        case delta(String)
    }

    package var kind: Kind

    static let preferHeader = HTTPField.Name("Prefer")!
    static let preferenceAppliedHeader = HTTPField.Name("Preference-Applied")!
    static let trackChanges = ODataDelta.trackChangesPreference
    package static let deltaTokenOption = ODataDelta.deltaTokenOption
    static let deltaStartOption = ODataDelta.deltaStartOption
    /// The feed's own options, left out of the query the token's fingerprint covers.
    static let options: Set<String> = [deltaTokenOption, deltaStartOption, "$skiptoken"]

    /// The request's delta options; nil for an ordinary read. Both tokens at once are refused.
    package static func parse(_ url: ODataRequestURL, headers: HTTPFields) throws(ODataError) -> DeltaRequest? {
        let token = url.value(of: deltaTokenOption), start = url.value(of: deltaStartOption)
        switch (token, start) {
        case (let token?, nil):
            guard !token.isEmpty else { throw .badRequest("!deltatoken is empty; follow the __delta link of an earlier answer as it was given.") }
            return DeltaRequest(kind: .delta(token))
        case (nil, let start?):
            guard !start.isEmpty else { throw .badRequest("!deltastart is empty; follow the __next link of an earlier answer as it was given.") }
            return DeltaRequest(kind: .start(start))
        case (_?, _?):
            throw .badRequest("A request carries !deltatoken or !deltastart, not both; follow the link the server gave.")
        case (nil, nil):
            return prefersTracking(headers) ? DeltaRequest(kind: .track) : nil
        }
    }

    /// Whether a `Prefer` header lists `odata.track-changes` (the V4 spelling; V2 clients of SAP's
    /// services send the same).
    static func prefersTracking(_ headers: HTTPFields) -> Bool {
        headers.preferenceTokens.contains { $0.name == trackChanges && $0.value == nil }
    }
}
