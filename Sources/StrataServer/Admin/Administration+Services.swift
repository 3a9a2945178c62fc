import StrataCore

/// How a service's page size changes.
public enum PageSizeSetting: Sendable, Hashable {
    /// Use the server's `--page-size`.
    case serverDefault
    /// This many rows per response before a `__next` link.
    case rows(Int)
}

extension Administration {
    /// The largest page a service may be given: beyond it one response holds more than a client
    /// should wait for, and keyset paging exists to avoid that.
    public static let maximumPageSize = 100_000

    /// The settings of every service that has any; others use the defaults.
    public func serviceSettings() async throws -> [String: ServiceSettings] {
        try await store.system.serviceSettings()
    }

    /// Changes a service's page size and whether its updates must carry `If-Match`; what is nil
    /// stays as it is. A running server reads service settings when it (re)loads its services.
    @discardableResult
    public func configureService(_ service: String, pageSize: PageSizeSetting? = nil, requireIfMatch: Bool? = nil) async throws -> ServiceSettings {
        _ = try await requireModel(service)
        if case .rows(let rows) = pageSize, !(1...Self.maximumPageSize).contains(rows) {
            throw ODataError.badRequest("A page size is between 1 and \(Self.maximumPageSize) rows, not \(rows).")
        }
        return try await store.system.updateServiceSettings(service) { settings in
            switch pageSize {
            case .serverDefault?: settings.pageSize = nil
            case .rows(let rows)?: settings.pageSize = rows
            case nil: break
            }
            if let requireIfMatch { settings.requireIfMatch = requireIfMatch }
        }
    }
}
