import Foundation
import StrataCore

/// A failure of the data table layer on this side of the network: a value that does not fit its
/// field, a change the table cannot make, a briefcase that cannot be written or read, or the
/// server's refusal of one row's change.
///
/// Requests that fail as a whole (the server unreachable, a 400 for refused SQL, a 403) throw
/// ``StrataError`` like every other client request; this type describes single rows and fields.
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
        /// The server did not store this row's change; the message is the server's reason.
        case rejected
        /// A briefcase file could not be written or read.
        case briefcase
    }

    /// What kind of failure this is.
    public var kind: Kind
    /// What went wrong, in words.
    public var message: String

    /// An error of `kind` with a message that names the field or row concerned.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
