import Foundation
import StrataCore

/// A failure of the data table layer: a value that does not fit its field, a change the table
/// cannot make, a server answer it cannot read, or the server refusing a request.
public struct DataTableError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Kind: Sendable, Hashable {
        /// No field of the table has this name.
        case unknownField
        /// The value's type does not fit the field's EDM type.
        case typeMismatch
        /// The value breaks the field's definition: null in a required field, a string longer than its size.
        case invalidValue
        /// The field cannot be changed (read-only, server-generated, or a key of a stored row).
        case readOnlyField
        /// The table cannot do this (no key to send changes with, a row that is not in it).
        case invalidOperation
        /// The request could not be sent or the connection broke.
        case transport
        /// The request was cancelled.
        case cancelled
        /// The server answered with something that is not a data table document.
        case invalidResponse
        /// The server refused the request; ``DataTableError/status`` and ``DataTableError/code`` say how.
        case server
        /// A briefcase file could not be written or read.
        case briefcase
    }

    public var kind: Kind
    /// What went wrong, in words.
    public var message: String
    /// The HTTP status, when the server answered.
    public var status: Int?
    /// The OData error code from the server's answer (`SQLNotAllowed`, `Forbidden`), when there was one.
    public var code: String?

    public init(_ kind: Kind, _ message: String, status: Int? = nil, code: String? = nil) {
        self.kind = kind
        self.message = message
        self.status = status
        self.code = code
    }

    public var description: String {
        var text = ""
        if let status { text += "\(status) " }
        if let code { text += "\(code): " }
        return text + message
    }
}
