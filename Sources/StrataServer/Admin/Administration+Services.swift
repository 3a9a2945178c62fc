import StrataCore
import StrataStorage
import StrataIdentity

/// How a per-service setting changes: back to the server's own option, or to a value of its own.
public enum SettingChange<Value: Sendable & Hashable>: Sendable, Hashable {
    /// Use the server's option (`--page-size`, `--statement-timeout`).
    case serverDefault
    case value(Value)
}

/// Rows per response before a `__next` link.
public typealias PageSizeSetting = SettingChange<Int>

extension Administration {
    /// The largest page a service may be given: beyond it one response holds more than a client
    /// should wait for, and keyset paging exists to avoid that.
    public static let maximumPageSize = 100_000

    /// The settings of every service that has any; others use the defaults.
    public func serviceSettings() async throws -> [String: ServiceSettings] {
        try await store.system.serviceSettings()
    }

    /// The longest statement timeout a service may be given, in milliseconds (a day); 0 is no limit.
    public static let maximumStatementTimeout = 86_400_000

    /// Changes a service's page size, whether its updates must carry `If-Match`, its statement
    /// timeout (milliseconds, 0 for none), whether inserts may give keys the database generates
    /// (``ServiceSettings/allowClientKeys``), and the OData version of requests that name none
    /// (``ServiceSettings/odataVersion``); what is nil stays as it is. A running server reads
    /// service settings when it (re)loads its services; on PostgreSQL the change is announced, and
    /// every server listening on the database reloads them when it commits.
    @discardableResult
    public func configureService(_ service: String, pageSize: PageSizeSetting? = nil, requireIfMatch: Bool? = nil,
                                 statementTimeout: SettingChange<Int>? = nil, allowClientKeys: Bool? = nil,
                                 odataVersion: ODataVersion? = nil) async throws -> ServiceSettings {
        _ = try await requireModel(service)
        if case .value(let rows) = pageSize, !(1...Self.maximumPageSize).contains(rows) {
            throw ODataError.badRequest("A page size is between 1 and \(Self.maximumPageSize) rows, not \(rows).")
        }
        if case .value(let milliseconds) = statementTimeout, !(0...Self.maximumStatementTimeout).contains(milliseconds) {
            throw ODataError.badRequest("A statement timeout is between 0 (no limit) and \(Self.maximumStatementTimeout) milliseconds, not \(milliseconds).")
        }
        return try await store.system.updateServiceSettings(service) { settings in
            switch pageSize {
            case .serverDefault?: settings.pageSize = nil
            case .value(let rows)?: settings.pageSize = rows
            case nil: break
            }
            switch statementTimeout {
            case .serverDefault?: settings.statementTimeoutMilliseconds = nil
            case .value(let milliseconds)?: settings.statementTimeoutMilliseconds = milliseconds
            case nil: break
            }
            if let requireIfMatch { settings.requireIfMatch = requireIfMatch }
            if let allowClientKeys { settings.allowClientKeys = allowClientKeys }
            if let odataVersion { settings.odataVersion = odataVersion }
        }
    }

    /// A service's default OData version as people write it: `2.0` or `4.0` (`2`, `4` and `4.01`
    /// too); 400 for anything else, naming what is possible.
    public static func defaultODataVersion(_ text: String) throws(ODataError) -> ODataVersion {
        switch text.trimmingWhitespace() {
        case "2", "2.0": return .v2
        case "4", "4.0", "4.01": return .v4
        default:
            throw ODataError.badRequest("The default OData version is 2.0 or 4.0, not \(text.prefix(20)). (A model file's maxProtocolVersion: \"1.0\" keeps a service at OData 1.0.)")
        }
    }
}
