import StrataCore

/// The query options a read honours.
struct ReadOptions: Sendable {
    var top: Int?
    var skip: Int?
    var skipToken: String?
    var inlineCount = false
    var format: String?

    /// Options that exist only in OData V2; a V1 client cannot be answered when it uses them.
    static let versionTwoOptions: Set<String> = ["$select", "$inlinecount", "$skiptoken"]

    init(_ url: ODataRequestURL, version: ODataVersion, maximumTop: Int = 10_000) throws(ODataError) {
        var seen: Set<String> = []
        for item in url.queryItems where item.name.hasPrefix("$") {
            guard seen.insert(item.name).inserted else {
                throw .badRequest("The query option \(item.name) appears more than once.")
            }
            if version == .v1 && Self.versionTwoOptions.contains(item.name) {
                throw .badRequest("\(item.name) needs OData 2.0, but the request allows at most 1.0 (MaxDataServiceVersion); send MaxDataServiceVersion: 2.0.")
            }
            switch item.name {
            case "$top": top = try Self.count(item)
            case "$skip": skip = try Self.count(item)
            case "$skiptoken": skipToken = item.value
            case "$format": format = item.value
            case "$inlinecount":
                switch item.value {
                case "allpages": inlineCount = true
                case "none": inlineCount = false
                default: throw .badRequest("$inlinecount must be allpages or none, not '\(item.value)'.")
                }
            default:
                throw .badRequest("The query option \(item.name) is not supported.")
            }
        }
        if let top, top > maximumTop {
            throw .badRequest("$top=\(top) is larger than the maximum of \(maximumTop); page with $skiptoken instead.")
        }
    }

    private static func count(_ item: ODataRequestURL.QueryItem) throws(ODataError) -> Int {
        guard let value = Int(item.value), value >= 0 else {
            throw .badRequest("\(item.name): '\(item.value)' is not a non-negative integer.")
        }
        return value
    }
}
