import HTTPTypes

extension HTTPRequest.Method {
    /// MERGE: OData V2's partial update, a PATCH by another name.
    package static let merge = HTTPRequest.Method("MERGE")!
}
