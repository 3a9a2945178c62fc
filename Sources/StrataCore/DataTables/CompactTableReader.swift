/// Reads a compact table document (``CompactTable``, ``CompactTableDelta``) as its bytes arrive and
/// hands out its rows as they complete, so that a table of a million rows is read without the
/// document or all of its rows in memory at once (``CompactTable/decode(_:)`` needs both).
///
/// Give it the bytes in chunks of any size with ``read(_:)``, which answers what each chunk
/// completed, then call ``finish()``. The values are checked as ``CompactTable/decode(_:)`` checks
/// them. A table's `name` and `fields` must come before its `rows` and `deleted`, as
/// ``CompactTableWriter`` writes them: a row cannot be read before the types of its fields.
///
/// ```swift
/// var reader = CompactTableReader()
/// for chunk in chunks {
///     for event in try reader.read(chunk) {
///         if case .rows(let rows) = event { insert(rows) }
///     }
/// }
/// try reader.finish()
/// let token = reader.token
/// ```
public struct CompactTableReader: Sendable {
    /// What a chunk completed, in document order.
    public enum Event: Sendable, Hashable {
        /// A table begins: its name and fields. Its rows and deleted keys follow.
        case table(name: String, fields: [DataTableField])
        /// Rows of the current table, in field order.
        case rows([[ODataValue]])
        /// Deleted keys of the current table (a delta), in key-field order.
        case deleted([[ODataValue]])
        /// The current table is complete.
        case endTable
    }

    /// The document's `token`, once read (it follows the rows).
    public private(set) var token: String?
    /// The document's `next` page, once read.
    public private(set) var next: String?
    /// Rows read so far, over all tables.
    public private(set) var rowCount = 0

    private enum Scope: Sendable { case document, table }
    private enum Phase: Sendable {
        case start
        case members(Scope, first: Bool)
        case tables(first: Bool)
        case rows(first: Bool)
        case deleted(first: Bool)
        case done
    }

    private var phase = Phase.start
    private var buffer: [UInt8] = []
    private var position = 0
    private var events: [Event] = []
    private var rows: [[ODataValue]] = []
    private var deleted: [[ODataValue]] = []
    // The table being read.
    private var name: String?
    private var fields: [DataTableField]?
    private var began = false
    private var tableIndex = -1
    private var rowIndex = 0

    /// A reader at the start of a document.
    public init() {}

    /// Reads the next bytes of the document and answers what they completed.
    /// - Throws: ``DataTableFormatError`` naming what is wrong and where.
    public mutating func read(_ chunk: some Collection<UInt8>) throws(DataTableFormatError) -> [Event] {
        // Bytes already read are dropped once they are most of the buffer, so it stays about a chunk long.
        if position > 65_536, position * 2 > buffer.count {
            buffer.removeFirst(position)
            position = 0
        }
        buffer.append(contentsOf: chunk)
        while try step() {}
        flush()
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    /// Hands out the rows and deleted keys gathered since the last event (gathered apart, so that
    /// adding one does not copy those before it).
    private mutating func flush() {
        if !rows.isEmpty {
            events.append(.rows(rows))
            rows.removeAll(keepingCapacity: true)
        }
        if !deleted.isEmpty {
            events.append(.deleted(deleted))
            deleted.removeAll(keepingCapacity: true)
        }
    }

    /// Says the document's bytes have ended.
    /// - Throws: ``DataTableFormatError`` when the document is incomplete, or is neither a table
    ///   nor `{"tables":[…]}`.
    public mutating func finish() throws(DataTableFormatError) {
        skipWhitespace()
        guard case .done = phase else {
            throw DataTableFormatError("the table document ends early (after \(rowCount) rows)")
        }
        guard position == buffer.count else { throw DataTableFormatError("unexpected text after the table document") }
        guard form != .unknown else { throw DataTableFormatError("the table document holds no table") }
    }

    /// Advances by one structural step; false when more bytes are needed (or the document ended).
    private mutating func step() throws(DataTableFormatError) -> Bool {
        skipWhitespace()
        guard position < buffer.count else { return false }
        let byte = buffer[position]
        switch phase {
        case .done:
            throw DataTableFormatError("unexpected text after the table document")
        case .start:
            // A UTF-8 byte order mark is tolerated at the start, as the parser does.
            if byte == 0xEF {
                guard buffer.count - position >= 3 else { return false }
                guard buffer[position + 1] == 0xBB, buffer[position + 2] == 0xBF else { throw DataTableFormatError("the table document is not JSON") }
                position += 3
                return true
            }
            guard byte == UInt8(ascii: "{") else { throw DataTableFormatError("the table document must be a JSON object") }
            position += 1
            phase = .members(.document, first: true)
            return true
        case .members(let scope, let first):
            if byte == UInt8(ascii: "}") {
                position += 1
                try endObject(scope)
                return true
            }
            let start = position
            if !first {
                guard byte == UInt8(ascii: ",") else { throw DataTableFormatError("expected ',' or '}' in the table document") }
                position += 1
                skipWhitespace()
            }
            guard let key = try memberKey() else {
                position = start
                return false
            }
            phase = .members(scope, first: false)
            guard try member(key, in: scope) else {
                position = start
                phase = .members(scope, first: first)
                return false
            }
            return true
        case .tables(let first):
            if byte == UInt8(ascii: "]") {
                position += 1
                phase = .members(.document, first: false)
                return true
            }
            let start = position
            if !first {
                guard byte == UInt8(ascii: ",") else { throw DataTableFormatError("expected ',' or ']' between tables") }
                position += 1
                skipWhitespace()
                guard position < buffer.count else {
                    position = start
                    return false
                }
            }
            guard buffer[position] == UInt8(ascii: "{") else { throw DataTableFormatError("tables[\(tableIndex + 1)] must be a table object") }
            position += 1
            startTable()
            phase = .members(.table, first: true)
            return true
        case .rows(let first), .deleted(let first):
            let isRows = if case .rows = phase { true } else { false }
            if byte == UInt8(ascii: "]") {
                position += 1
                flush()
                phase = .members(tableScope, first: false)
                return true
            }
            let start = position
            if !first {
                guard byte == UInt8(ascii: ",") else { throw DataTableFormatError("expected ',' or ']' in \(path).\(isRows ? "rows" : "deleted")") }
                position += 1
            }
            guard let value = try value() else {
                position = start
                return false
            }
            if isRows {
                rows.append(try CompactTable.row(value, fields: fields ?? [], at: "\(path).rows[\(rowIndex)]"))
                rowIndex += 1
                rowCount += 1
                phase = .rows(first: false)
            } else {
                deleted += try CompactTable.deletedKeys(.array([value]), fields: fields ?? [], at: path) ?? []
                phase = .deleted(first: false)
            }
            return true
        }
    }

    /// Reads one member's value, or starts reading the rows or tables it holds. False when the
    /// value is not complete yet.
    private mutating func member(_ key: String, in scope: Scope) throws(DataTableFormatError) -> Bool {
        skipWhitespace()
        guard position < buffer.count else { return false }
        if scope == .document, key == "tables", form == .unknown {
            guard buffer[position] == UInt8(ascii: "[") else { throw DataTableFormatError("tables must be an array") }
            position += 1
            form = .tables
            phase = .tables(first: true)
            return true
        }
        // In the one-table form the document's own members are the table's.
        let ofTable = scope == .table || form != .tables
        if ofTable, scope == .document, form == .unknown, ["name", "fields", "rows", "deleted"].contains(key) {
            form = .table
            startTable()
        }
        if ofTable, key == "rows" || key == "deleted", buffer[position] != UInt8(ascii: "n") {
            guard buffer[position] == UInt8(ascii: "[") else {
                throw DataTableFormatError("\(path).\(key) must be an array\(key == "deleted" ? " of keys" : "")")
            }
            try beginTable()
            position += 1
            if key == "rows" {
                phase = .rows(first: true)
            } else {
                // Announced even when empty: a delta's table says "nothing deleted", as decode reads it.
                events.append(.deleted([]))
                phase = .deleted(first: true)
            }
            return true
        }
        guard let value = try value() else { return false }
        switch key {
        case "token", "next":
            guard !value.isNull else { return true }
            guard let text = value.stringValue, !text.isEmpty else { throw DataTableFormatError("\(key) must be a non-empty string") }
            if key == "token" { token = text } else { next = text }
        case "name" where ofTable:
            guard let text = value.stringValue else { throw DataTableFormatError("\(path) has no name") }
            name = text
        case "fields" where ofTable:
            guard case .array(let items) = value else { throw DataTableFormatError("\(path) (\(name ?? "")) has no fields array") }
            guard !began else { throw DataTableFormatError("\(path) gives its fields after its rows; the fields come first") }
            var read: [DataTableField] = []
            for (index, item) in items.enumerated() { read.append(try DataTableField(json: item, at: "\(path).fields[\(index)]")) }
            fields = read
        case "rows" where ofTable, "deleted" where ofTable:
            guard value.isNull else { throw DataTableFormatError("\(path).\(key) must be an array") }
        default:
            break
        }
        return true
    }

    private mutating func endObject(_ scope: Scope) throws(DataTableFormatError) {
        if scope == .table || form == .table {
            try beginTable()
            events.append(.endTable)
            name = nil
            fields = nil
            began = false
        }
        phase = scope == .table ? .tables(first: false) : .done
    }

    /// The document's form: `{"tables":[…]}`, or one table object.
    private enum Form: Sendable { case unknown, tables, table }
    private var form = Form.unknown

    private var tableScope: Scope { form == .tables ? .table : .document }

    private mutating func startTable() {
        tableIndex += 1
        rowIndex = 0
    }

    /// Announces the table once its name and fields are known: before its first row or at its end.
    private mutating func beginTable() throws(DataTableFormatError) {
        guard !began else { return }
        guard let name else { throw DataTableFormatError("\(path) has no name") }
        guard let fields else { throw DataTableFormatError("\(path) (\(name)) has no fields array") }
        began = true
        events.append(.table(name: name, fields: fields))
    }

    private var path: String { form == .tables ? "tables[\(tableIndex)]" : "table" }

    // MARK: Bytes

    private mutating func skipWhitespace() {
        while position < buffer.count {
            switch buffer[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    /// A member's key and its colon, or nil when they are not complete yet.
    private mutating func memberKey() throws(DataTableFormatError) -> String? {
        guard position < buffer.count else { return nil }
        guard buffer[position] == UInt8(ascii: "\"") else { throw DataTableFormatError("expected a member name in \(path)") }
        guard let value = try value() else { return nil }
        skipWhitespace()
        guard position < buffer.count else { return nil }
        guard buffer[position] == UInt8(ascii: ":") else { throw DataTableFormatError("expected ':' after a member name in \(path)") }
        position += 1
        return value.stringValue
    }

    /// The JSON value at the position, parsed, or nil when its bytes have not all arrived (the
    /// position is then unchanged).
    private mutating func value() throws(DataTableFormatError) -> JSONValue? {
        skipWhitespace()
        guard let end = valueEnd(from: position) else { return nil }
        do {
            let value = try JSONValue.parse(buffer, range: position ..< end)
            position = end
            return value
        } catch {
            throw DataTableFormatError("\(path) is not JSON: \(error)")
        }
    }

    /// Where the JSON value starting at `start` ends, found by its brackets and strings alone (the
    /// parser checks it); nil when the buffer ends first.
    private func valueEnd(from start: Int) -> Int? {
        var index = start
        var depth = 0
        var inString = false
        while index < buffer.count {
            let byte = buffer[index]
            if inString {
                if byte == UInt8(ascii: "\\") {
                    index += 2
                    continue
                }
                if byte == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 0 { return index + 1 }
                }
            } else {
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    if depth == 0 { return index }
                    depth -= 1
                    if depth == 0 { return index + 1 }
                case UInt8(ascii: ","), 0x20, 0x0A, 0x0D, 0x09:
                    if depth == 0 { return index }
                default: break
                }
            }
            index += 1
        }
        return nil
    }
}
