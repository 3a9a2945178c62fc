import Foundation
import Hummingbird
import StrataCore
import StrataIdentity
import StrataStorage

extension AdminRoutes {
    /// `/admin/keys`: the token signing keys, as `strata keys list|rotate` shows and changes them.
    /// A rotation through a server applies to that server at once (it reads the keys again), to
    /// the others as a rotation by `strata keys rotate` does.
    static func registerKeys(on group: RouterGroup<StrataRequestContext>, admin: Administration, auth: AuthRuntime) {
        group.get("keys") { _, context in
            context.setRoute("admin.keys")
            return AdminJSON.respond(keys(try await admin.listSigningKeys()))
        }
        group.post("keys/rotate") { request, context in
            context.setRoute("admin.keys")
            let body = try await AdminJSON.body(request)
            let name = body["algorithm"]?.stringValue ?? TokenAlgorithm.hs256.rawValue
            guard let algorithm = TokenAlgorithm(name: name) else {
                throw ODataError.badRequest("The algorithm is HS256 or ES256, not \(name).")
            }
            let added: SigningKeySummary
            do {
                added = try await admin.rotateSigningKey(algorithm: algorithm)
            } catch let error as ConfigurationError {
                // Keys this server holds but could not seal a new one for (the key file where it has a secret).
                throw ODataError(status: 409, code: "Conflict", message: error.description)
            }
            try await auth.reloadSigningKeys()
            return Response(status: .created, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                            body: .init(byteBuffer: .init(bytes: keys([added]))))
        }
    }

    /// `{"keys":[{"kid","algorithm","created","retired","verifiesUntil"}]}`, times in seconds since 1970 (null while a key signs).
    static func keys(_ keys: [SigningKeySummary]) -> [UInt8] {
        func seconds(_ date: Date?) -> JSONValue { date.map { .number(String(Int64($0.timeIntervalSince1970))) } ?? .null }
        return AdminJSON.object([("keys", .array(keys.map { key in
            .object(JSONObject([
                (key: "kid", value: .string(key.kid)),
                (key: "algorithm", value: .string(key.algorithm)),
                (key: "created", value: seconds(key.createdAt)),
                (key: "retired", value: seconds(key.retiredAt)),
                (key: "verifiesUntil", value: seconds(key.verifiesUntil)),
            ]))
        }))])
    }
}
