import Foundation
import StrataCore
#if canImport(Darwin)
internal import SQLite3
#else
internal import CStrataSQLite
#endif

/// A prepared statement: values bound by position, then stepped through its result rows.
///
/// Values are always bound (``bind(_:at:)``), never written into the statement's text.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private unowned let connection: SQLiteConnection
    /// The text after the first statement of what was prepared (only spaces or comments when there was one statement).
    let remainder: String

    init(_ handle: OpaquePointer, connection: SQLiteConnection, remainder: String) {
        self.handle = handle
        self.connection = connection
        self.remainder = remainder
    }

    /// Frees the statement; it is not used again.
    func finalize() {
        sqlite3_finalize(handle)
    }

    /// Ready to run again, with no values bound.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// True when the statement cannot write (`sqlite3_stmt_readonly`).
    var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    /// How many parameters (`?`) the statement has.
    var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    // MARK: Binding

    /// Binds a value to the parameter at `index` (from 1), stored as ``SQLiteColumnType`` says.
    func bind(_ value: ODataValue, at index: Int) throws(SQLiteError) {
        let position = Int32(index)
        let result: Int32
        switch SQLiteValue(value) {
        case .null: result = sqlite3_bind_null(handle, position)
        case .integer(let integer): result = sqlite3_bind_int64(handle, position, integer)
        case .real(let real): result = sqlite3_bind_double(handle, position, real)
        case .text(let text): result = sqlite3_bind_text(handle, position, text, -1, Self.transient)
        case .blob(let data):
            result = data.withUnsafeBytes { buffer in
                // A zero-length blob still needs a non-null pointer, or SQLite binds NULL.
                sqlite3_bind_blob(handle, position, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), Self.transient)
            }
        }
        guard result == SQLITE_OK else { throw connection.error(result, doing: "binding parameter \(index)") }
    }

    /// Binds values to the parameters from 1 on.
    func bind(_ values: [ODataValue]) throws(SQLiteError) {
        for (offset, value) in values.enumerated() { try bind(value, at: offset + 1) }
    }

    /// Binds text (a name, a token, a JSON document).
    func bind(_ text: String?, at index: Int) throws(SQLiteError) {
        try bind(text.map(ODataValue.string) ?? .null, at: index)
    }

    /// Binds an integer.
    func bind(_ integer: Int64, at index: Int) throws(SQLiteError) {
        try bind(.int64(integer), at: index)
    }

    // MARK: Stepping

    /// Steps to the next row: true when there is one, false when the statement is done.
    @discardableResult
    func step() throws(SQLiteError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            let error = connection.error(code, doing: "running \(String(cString: sqlite3_sql(handle)).prefix(60))")
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Steps until done (a statement without results) and resets.
    func run() throws(SQLiteError) {
        while try step() {}
        sqlite3_reset(handle)
    }

    // MARK: Columns

    var columnCount: Int { Int(sqlite3_column_count(handle)) }

    func columnName(_ index: Int) -> String {
        sqlite3_column_name(handle, Int32(index)).map { String(cString: $0) } ?? "column\(index + 1)"
    }

    /// The declared type of a result column that is a table's column; nil for an expression.
    func declaredType(_ index: Int) -> String? {
        sqlite3_column_decltype(handle, Int32(index)).map { String(cString: $0) }
    }

    /// The value of a column of the current row as SQLite stores it.
    func value(_ index: Int) -> SQLiteValue {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(handle, column) else { return .text("") }
            return .text(String(cString: text))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    /// The value of a column of the current row, as a value of `type` (nil: as SQLite stores it).
    func value(_ index: Int, as type: EDMPrimitiveType?) throws(SQLiteError) -> ODataValue {
        let stored = value(index)
        guard let type else { return stored.odataValue }
        guard let value = stored.odataValue(as: type) else {
            throw SQLiteError(code: SQLiteCode.corrupt, message: "\(columnName(index)) holds \(stored), which is not a \(type.rawValue) (in \(connection.path))")
        }
        return value
    }

    /// The text of a column (nil for NULL).
    func text(_ index: Int) -> String? {
        if case .text(let text) = value(index) { return text }
        return nil
    }

    /// The integer of a column (nil for NULL or another type).
    func integer(_ index: Int) -> Int64? {
        if case .integer(let integer) = value(index) { return integer }
        return nil
    }

    /// SQLite copies bound text and blobs before the bind call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
