import Foundation
import Hummingbird
import NIOCore
import StrataCore
import StrataBlobs
import StrataIdentity
import StrataOData
import StrataStorage

/// Reading requests and writing answers of the `/admin` API.
enum AdminJSON {
    static let maximumBodySize = 512 * 1024

    static func body(_ request: Request) async throws -> JSONObject {
        let media = request.headers[.contentType]?.split(separator: ";").first.map { $0.lowercased() }
        guard media == "application/json" else {
            throw ODataError.unsupportedMediaType("Send /admin requests as application/json.")
        }
        let buffer = try await request.body.collect(upTo: maximumBodySize)
        guard case .object(let object)? = try? JSONValue.parse(Array(buffer: buffer), maximumDepth: 16) else {
            throw ODataError.badRequest("The body is not a JSON object.")
        }
        return object
    }

    static func string(_ object: JSONObject, _ name: String) throws(ODataError) -> String {
        guard let value = object[name]?.stringValue, !value.isEmpty else { throw .badRequest("The body needs a string \(name).") }
        return value
    }

    static func optionalQuery(_ request: Request, _ name: String) -> String? {
        for pair in (request.uri.query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if PercentEncoding.decode(parts[0], plusAsSpace: true) == name {
                let value = PercentEncoding.decode(parts.count > 1 ? parts[1] : "", plusAsSpace: true)
                return value?.isEmpty == false ? value : nil
            }
        }
        return nil
    }

    static func query(_ request: Request, _ name: String) throws(ODataError) -> String {
        guard let value = optionalQuery(request, name) else { throw .badRequest("The query needs \(name)=….") }
        return value
    }

    /// `editor` (every service) or `reader@hockey` (one service).
    static func assignment(_ text: String) throws(ODataError) -> RoleAssignment {
        guard !text.isEmpty else { throw .badRequest("A role is a name, or name@service.") }
        if let at = text.firstIndex(of: "@") {
            return RoleAssignment(role: String(text[..<at]), service: String(text[text.index(after: at)...]))
        }
        return RoleAssignment(role: text)
    }

    /// `read,insert`, or `all`.
    static func actions(_ text: String) throws(ODataError) -> [TableAction] {
        try actionList(text)
    }

    /// `read,write`, or `all`: actions on containers.
    static func blobActions(_ text: String) throws(ODataError) -> [BlobAction] {
        try actionList(text)
    }

    /// A comma-separated list of an action type's names, or `all`; duplicates are dropped.
    static func actionList<Action: RawRepresentable & CaseIterable & Equatable>(_ text: String) throws(ODataError) -> [Action]
    where Action.RawValue == String {
        if text == "all" { return Array(Action.allCases) }
        let names = Action.allCases.map(\.rawValue).joined(separator: ", ")
        var actions: [Action] = []
        for name in text.split(separator: ",") {
            guard let action = Action(rawValue: name.lowercased()) else {
                throw .badRequest("'\(name)' is not an action; use \(names) or all.")
            }
            if !actions.contains(action) { actions.append(action) }
        }
        guard !actions.isEmpty else { throw .badRequest("Name at least one action: \(names) or all.") }
        return actions
    }

    /// `{"claim","match":"any"|"equals"|"suffix","value","role","allowUnverified":false}`.
    static func rule(_ value: JSONValue) throws(ODataError) -> ClaimRule {
        guard case .object(let object) = value else { throw .badRequest("A rule is an object with claim, match, value and role.") }
        let claim = try string(object, "claim"), role = try string(object, "role")
        let match = object["match"]?.stringValue ?? "equals"
        guard let rule = ClaimRule(claim: claim, kind: match, value: object["value"]?.stringValue ?? "", role: role,
                                   allowsUnverifiedEmail: try optionalBool(object, "allowUnverified") ?? false) else {
            throw .badRequest("A rule's match is any, equals or suffix, not \(match).")
        }
        return rule
    }

    static func respond(_ bytes: [UInt8]) -> Response {
        ODataResponse.json(bytes, version: nil, extraHeaders: [.cacheControl: "no-store"])
    }

    /// `"pageSize"`: absent keeps the setting, null returns to the server's default, a number sets it.
    static func pageSize(_ value: JSONValue?) throws(ODataError) -> PageSizeSetting? {
        switch value {
        case nil: return nil
        case .null?: return .serverDefault
        case .number(let text)?:
            guard let rows = Int(text) else { throw .badRequest("pageSize must be a whole number of rows, not \(text.prefix(40)).") }
            return .value(rows)
        default: throw .badRequest("pageSize must be a number of rows, or null for the server's default.")
        }
    }

    /// `"statementTimeout"`: seconds (a fraction allowed; 0 for no limit), null for the server's default.
    static func statementTimeout(_ value: JSONValue?) throws(ODataError) -> SettingChange<Int>? {
        switch value {
        case nil: return nil
        case .null?: return .serverDefault
        case .number(let text)?:
            guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds * 1000 <= Double(Administration.maximumStatementTimeout) else {
                throw .badRequest("statementTimeout must be a number of seconds from 0 (no limit) to 86400, not \(text.prefix(40)).")
            }
            return .value(Int((seconds * 1000).rounded()))
        default: throw .badRequest("statementTimeout must be a number of seconds (0 for no limit), or null for the server's default.")
        }
    }

    /// `"odataVersion"`: `"2.0"` or `"4.0"` (a number too); absent keeps the setting.
    static func odataVersion(_ value: JSONValue?) throws(ODataError) -> ODataVersion? {
        switch value {
        case nil: return nil
        case .string(let text)?, .number(let text)?: return try Administration.defaultODataVersion(text)
        default: throw .badRequest("odataVersion must be \"2.0\" or \"4.0\".")
        }
    }

    static func optionalBool(_ object: JSONObject, _ name: String) throws(ODataError) -> Bool? {
        guard let value = object[name] else { return nil }
        guard let bool = value.boolValue else { throw .badRequest("\(name) must be true or false.") }
        return bool
    }

    /// `{"cardealer":{"pageSize":500,"requireIfMatch":false,"statementTimeout":30.0,"allowClientKeys":false,"odataVersion":"2.0"}}`;
    /// null is the server's setting.
    static func services(_ settings: [String: ServiceSettings]) -> [UInt8] {
        object(settings.sorted { $0.key < $1.key }.map { name, settings in
            (name, .object(JSONObject([
                (key: "pageSize", value: settings.pageSize.map { .number(String($0)) } ?? .null),
                (key: "requireIfMatch", value: .bool(settings.requireIfMatch)),
                (key: "statementTimeout", value: settings.statementTimeoutMilliseconds.map { .number(String(Double($0) / 1000)) } ?? .null),
                (key: "allowClientKeys", value: .bool(settings.allowClientKeys)),
                (key: "odataVersion", value: .string(settings.odataVersion == .v4 ? "4.0" : "2.0")),
            ])))
        })
    }

    static func object(_ entries: [(String, JSONValue)]) -> [UInt8] {
        var writer = JSONWriter()
        JSONValue.object(JSONObject(entries.map { (key: $0.0, value: $0.1) })).write(to: &writer)
        return writer.bytes
    }

    static func users(_ accounts: [AccountSummary]) -> [UInt8] {
        object([("users", .array(accounts.map { account in
            .object(JSONObject([
                (key: "username", value: .string(account.username)),
                (key: "created", value: .number(String(Int64(account.createdAt.timeIntervalSince1970)))),
                (key: "roles", value: .array(account.roles.map { .string($0.description) })),
            ]))
        }))])
    }

    static func grants(_ grants: [TableGrant]) -> [UInt8] {
        object([("grants", .array(grants.map { grant in
            .object(JSONObject([
                (key: "role", value: .string(grant.role)),
                (key: "service", value: .string(grant.service)),
                (key: "table", value: grant.table.map(JSONValue.string) ?? .null),
                (key: "action", value: .string(grant.action.rawValue)),
                (key: "filter", value: grant.rowFilter.map(JSONValue.string) ?? .null),
            ]))
        }))])
    }

    static func issuers(_ issuers: [TrustedIssuer]) -> [UInt8] {
        object([("issuers", .array(issuers.map { issuer in
            .object(JSONObject([
                (key: "issuer", value: .string(issuer.issuer)),
                (key: "audience", value: .string(issuer.audience)),
                (key: "keys", value: .number(String((try? JSONValue.parse(issuer.jwks))?["keys"]?.arrayValue?.count ?? 0))),
                (key: "rules", value: .array(issuer.rules.map { rule in
                    let stored = rule.storedMatch
                    return .object(JSONObject([
                        (key: "claim", value: .string(rule.claim)), (key: "match", value: .string(stored.kind)),
                        (key: "value", value: .string(stored.value)), (key: "role", value: .string(rule.role)),
                        (key: "allowUnverified", value: .bool(rule.allowsUnverifiedEmail)),
                    ]))
                })),
            ]))
        }))])
    }
}
