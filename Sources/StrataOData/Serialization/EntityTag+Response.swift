import Hummingbird

extension EntityTag {
    /// 304 for a conditional GET whose `If-None-Match` names the current tag.
    static func notModifiedResponse(_ tag: EntityTag) -> Response {
        Response(status: .notModified, headers: [.eTag: tag.headerValue], body: ResponseBody())
    }
}
