import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StrataCore

/// Strata's requests to identity providers: discovery, keys, the token endpoint, user info.
///
/// Bounded on every side: 10 seconds per request, 1 MiB per answer, and an answer must be a JSON
/// object. A provider that fails is named in the error, which says what the administrator should
/// check; nothing the provider sent back is echoed beyond its OAuth `error` code.
package enum ProviderHTTP {
    static let timeout: TimeAmount = .seconds(10)
    static let maximumAnswer = 1 << 20

    /// Why a provider could not be used; logged with the provider's name, shown to the user as
    /// "the provider could not be reached".
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    static func getJSON(_ url: String, bearer: String? = nil) async throws -> JSONObject {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        return try await send(request, url: url)
    }

    /// A form POST (the token endpoint); `basic` authenticates the client with HTTP Basic
    /// (`client_secret_basic`, RFC 6749 §2.3.1, each part form-encoded first).
    static func postForm(_ url: String, fields: [(String, String)], basic: (String, String)?) async throws -> JSONObject {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        if let (user, password) = basic {
            let credentials = PercentEncoding.encodeFormValue(user) + ":" + PercentEncoding.encodeFormValue(password)
            request.headers.add(name: "Authorization", value: "Basic " + Data(credentials.utf8).base64EncodedString())
        }
        request.body = .bytes(ByteBuffer(string: PercentEncoding.encodeForm(fields)))
        return try await send(request, url: url, acceptErrorBody: true)
    }

    private static func send(_ request: HTTPClientRequest, url: String, acceptErrorBody: Bool = false) async throws -> JSONObject {
        let response: HTTPClientResponse
        let body: ByteBuffer
        do {
            response = try await HTTPClient.shared.execute(request, timeout: timeout)
            body = try await response.body.collect(upTo: maximumAnswer)
        } catch {
            throw Failure(description: "\(url) could not be reached (\(error))")
        }
        let parsed = try? JSONValue.parse(Array(buffer: body), maximumDepth: 16)
        guard case .object(let object)? = parsed else {
            throw Failure(description: "\(url) answered \(response.status.code) without a JSON object")
        }
        guard (200..<300).contains(response.status.code) || (acceptErrorBody && object["error"] != nil) else {
            throw Failure(description: "\(url) answered \(response.status.code)")
        }
        return object
    }
}
