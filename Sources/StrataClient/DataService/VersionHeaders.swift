import StrataCore

/// The headers that tell a service which OData version the client speaks.
///
/// V1 and V2 say it with `MaxDataServiceVersion` (and `DataServiceVersion` on a request with a
/// body); V4 with `OData-MaxVersion` (and `OData-Version`), and asks for V4 JSON with minimal
/// metadata in `Accept`. Headers the request already has are left alone.
struct VersionHeaders: Sendable {
    /// What V4 requests accept: JSON with as little control information as the service can leave out.
    static let acceptV4 = "application/json;odata.metadata=minimal"

    var version: ODataVersion

    func add(to request: inout StrataRequest) {
        if version.isV4 {
            if request.headers["OData-MaxVersion"] == nil { request.headers["OData-MaxVersion"] = "4.0" }
            if request.headers["Accept"] == nil { request.headers["Accept"] = Self.acceptV4 }
            if request.body != nil, request.headers["OData-Version"] == nil { request.headers["OData-Version"] = "4.0" }
        } else {
            if request.headers["MaxDataServiceVersion"] == nil {
                request.headers["MaxDataServiceVersion"] = "\(version.rawValue).0"
            }
            if request.body != nil, request.headers["DataServiceVersion"] == nil {
                request.headers["DataServiceVersion"] = "\(version.rawValue).0"
            }
        }
    }
}
