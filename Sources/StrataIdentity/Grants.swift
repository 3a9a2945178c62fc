import Foundation
import StrataCore

/// The roles Strata knows without being told. Any other name is a custom role, which has exactly
/// the rights granted to it.
public enum BuiltInRole: String, Sendable, CaseIterable {
    /// Reads every table of the services where the role is held.
    case reader
    /// Reads and writes every table of the services where the role is held.
    case editor
    /// Everything an editor may do, plus the `/admin` API when held for every service.
    case admin

    /// The actions the role allows on every table, before any grant.
    package var actions: Set<TableAction> {
        switch self {
        case .reader: return [.read]
        case .editor, .admin: return Set(TableAction.allCases)
        }
    }
}

/// A role held by an account, for every service or for one.
public struct RoleAssignment: Sendable, Hashable, CustomStringConvertible {
    public var role: String
    /// The service the role is held for; nil for every service.
    public var service: String?

    public init(role: String, service: String? = nil) {
        self.role = role
        self.service = service
    }

    public var description: String { service.map { "\(role)@\($0)" } ?? role }

    func applies(to service: String) -> Bool { self.service == nil || self.service == service }
}

/// A right of a role on one table (or every table) of a service, optionally limited to the rows a
/// filter selects.
public struct TableGrant: Sendable, Hashable {
    public var role: String
    public var service: String
    /// The entity set (table); nil for every table of the service.
    public var table: String?
    public var action: TableAction
    /// An OData `$filter` expression that may use `$claims.<name>`; nil for every row.
    public var rowFilter: String?

    public init(role: String, service: String, table: String?, action: TableAction, rowFilter: String? = nil) {
        self.role = role
        self.service = service
        self.table = table
        self.action = action
        self.rowFilter = rowFilter
    }
}

/// What callers without credentials may do in a service.
public enum AnonymousAccess: String, Sendable, CaseIterable {
    /// Nothing: every request needs credentials (the default for a service nobody configured).
    case none
    /// Read every table; writes still need credentials.
    case read
}

/// Names that accounts, roles and claims may have.
package enum AuthNames {
    /// Account names: 1–128 characters, no control characters, no `:` (HTTP Basic ends the name at
    /// the first colon) and no surrounding spaces.
    package static func checkUsername(_ name: String) throws(ODataError) {
        guard !name.isEmpty, name.count <= 128 else {
            throw .badRequest("An account name has 1 to 128 characters.")
        }
        guard !name.contains(":"), !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }),
              name.trimmingCharacters(in: .whitespaces) == name else {
            throw .badRequest("An account name may not contain ':' or control characters, nor start or end with a space.")
        }
    }

    /// Role names: 1–64 letters, digits, `_`, `-` or `.`.
    package static func checkRole(_ role: String) throws(ODataError) {
        guard !role.isEmpty, role.count <= 64,
              role.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || "_-.".unicodeScalars.contains($0)) })
        else {
            throw .badRequest("A role name has 1 to 64 letters, digits, '_', '-' or '.'; '\(role)' does not.")
        }
    }
}
