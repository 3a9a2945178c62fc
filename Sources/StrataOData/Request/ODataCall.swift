import HTTPTypes
import Logging
import StrataCore
import StrataIdentity

/// One OData request after the common prologue: the service it addresses, its URL, method and
/// headers, the protocol version of the answer, and the caller.
///
/// A class: the call is handed to every stage of a request (resolver, authorizer, operation,
/// serializer), and
/// copying a struct of this size retained each of its members at every hand-off.
package final class ODataCall: Sendable {
    package let settings: RequestSettings
    package let logger: Logger
    package let service: ODataService
    package let url: ODataRequestURL
    /// The effective method (after `X-HTTP-Method` tunnelling).
    package let method: HTTPRequest.Method
    package let headers: HTTPFields
    package let version: ODataVersion
    /// `http://host:port/service/`
    package let serviceRoot: String
    package let principal: Principal?
    /// A V4 answer's control information and number format (`odata.metadata`, `IEEE754Compatible`).
    package let jsonFormat: JSONFormat

    package init(settings: RequestSettings, logger: Logger, service: ODataService, url: ODataRequestURL, method: HTTPRequest.Method,
         headers: HTTPFields, version: ODataVersion, serviceRoot: String, principal: Principal?, jsonFormat: JSONFormat = JSONFormat()) {
        self.settings = settings
        self.logger = logger
        self.service = service
        self.url = url
        self.method = method
        self.headers = headers
        self.version = version
        self.serviceRoot = serviceRoot
        self.principal = principal
        self.jsonFormat = jsonFormat
    }

    package var isHead: Bool { method == .head }
}
