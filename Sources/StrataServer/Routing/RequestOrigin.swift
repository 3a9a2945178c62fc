import Hummingbird

extension StrataRuntime {
    /// The scheme, host and port clients used: the configured public URL (`--public-url`), else the
    /// request's Host header. Links in answers and hosted sign-in's callback URL start with it.
    func baseURL(for request: Request) -> String {
        if let configured = configuration.publicBaseURL {
            return configured.hasSuffix("/") ? String(configured.dropLast()) : configured
        }
        let host = request.head.authority ?? "\(configuration.host):\(configuration.port)"
        return (request.head.scheme ?? "http") + "://" + host
    }
}
