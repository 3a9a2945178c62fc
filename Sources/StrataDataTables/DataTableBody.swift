import HTTPTypes
import StrataCore
import StrataOData

/// Checks shared by the data table endpoints that take a body (`$sql`, `$changes`).
enum DataTableBody {
    /// POST only, a JSON body (415 for another declared type), a JSON answer acceptable.
    static func require(_ call: ODataCall, body: [UInt8], endpoint: String, shape: String) throws(ODataError) {
        guard call.method == .post else {
            throw .methodNotAllowed("\(endpoint) takes a POST with a JSON body such as \(shape).")
        }
        try ContentNegotiation.requireJSON(accept: call.headers[.accept], format: call.url.value(of: "$format"))
        if let mediaType = call.bodyMediaType {
            guard ODataCall.readsAsJSON(mediaType) else {
                throw .unsupportedMediaType("\(endpoint) reads its body as JSON (Content-Type: application/json), not \(mediaType.prefix(60)).")
            }
        }
        guard !body.isEmpty else {
            throw .badRequest("\(endpoint) needs a JSON body such as \(shape).")
        }
    }
}
