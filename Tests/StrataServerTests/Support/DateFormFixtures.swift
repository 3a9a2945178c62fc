import Foundation
@testable import StrataCore
import StrataSQL

/// Tables of dates stored the ways real SQLite files store them, one table per form, each with an
/// index on its date column `OrderDate`, written by Python's `sqlite3` (SQLite's own `julianday`
/// and `strftime` make the numbers); and the same rows on PostgreSQL in real timestamp columns.
///
/// Rows 4 and 5 fall on 2017-01-01 and row 6 on 2017-01-02, the edges of the month range the
/// issue saw answered wrong; row 1 is the date-only value `eq` missed; row 9 is noon, which a
/// NUMERIC column keeps as an INTEGER Julian day; row 10 is before 1970; row 11 is null.
enum DateFormFixtures {
    static func at(_ text: String) -> ODataDateTime { ODataDateTime.parse(text)! }

    static let dates: [(id: Int, at: ODataDateTime?)] = [
        (1, at("2016-07-04")), (3, at("2016-12-31")), (4, at("2017-01-01")), (5, at("2017-01-01")), (6, at("2017-01-02")),
        (7, at("2017-01-31")), (8, at("2017-02-01")), (10, at("1969-12-31")), (11, nil),
    ]
    static let seconds: [(id: Int, at: ODataDateTime?)] = [
        (1, at("2016-07-04T00:00:00")), (2, at("2016-07-04T10:30:00")), (3, at("2016-12-31T23:59:59")), (4, at("2017-01-01T00:00:00")),
        (5, at("2017-01-01T00:00:00")), (6, at("2017-01-02T00:00:00")), (7, at("2017-01-31T23:59:59")), (8, at("2017-02-01T00:00:00")),
        (9, at("2018-03-15T12:00:00")), (10, at("1969-12-31T23:59:59")), (11, nil),
    ]
    /// With fractions of a second, for the forms that hold them.
    static let milliseconds = seconds + [(12, at("2017-01-15T08:00:00.250")), (13, at("2016-07-04T00:00:00.001"))]

    struct Table: Sendable {
        var name: String
        /// The column's declared type on SQLite and on PostgreSQL.
        var declared: String
        var postgres: String
        var rows: [(id: Int, at: ODataDateTime?)]
        /// The SQL literal of a row's value in this form.
        var spell: @Sendable (_ id: Int, _ at: ODataDateTime) -> String
        /// The column as a Julian day through SQLite's own date functions: how the tests ask SQLite.
        var julian: String = "julianday(OrderDate)"
        /// The form the catalog reader should find.
        var form: DateStorageForm?
        var isOffset: Bool { declared == "DATETIMEOFFSET" }
    }

    static let tables: [Table] = [
        Table(name: "DateOnly", declared: "DATE", postgres: "DATE", rows: dates, spell: { _, at in "'\(text(at, dateOnly: true))'" },
              form: .text(DateTextLayout(precisions: [.day]))),
        Table(name: "Seconds", declared: "DATETIME", postgres: "TIMESTAMP(3)", rows: seconds, spell: { _, at in "'\(text(at))'" },
              form: .text(DateTextLayout(precisions: [.second]))),
        Table(name: "PythonText", declared: "TIMESTAMP", postgres: "TIMESTAMP(3)", rows: milliseconds, spell: { _, at in "'\(text(at, fraction: 6))'" },
              form: .text(DateTextLayout(precisions: [.second, .fraction(6)]))),
        Table(name: "IsoZulu", declared: "DATETIME", postgres: "TIMESTAMP(3)", rows: milliseconds,
              spell: { _, at in "'\(text(at, separator: "T", fraction: 3, always: true))Z'" },
              form: .text(DateTextLayout(separator: "T", precisions: [.fraction(3)], suffix: "Z"))),
        Table(name: "Berlin", declared: "DATETIME", postgres: "TIMESTAMP(3)", rows: seconds,
              spell: { _, at in "'\(text(ODataDateTime(microsecondsSince1970: at.microsecondsSince1970 + 7_200_000_000), separator: "T"))+02:00'" },
              form: .text(DateTextLayout(separator: "T", precisions: [.second], suffix: "+02:00"))),
        Table(name: "Julian", declared: "DATETIME", postgres: "TIMESTAMP(3)", rows: milliseconds,
              spell: { _, at in "julianday('\(text(at, fraction: 3))')" }, form: .julianDay),
        Table(name: "Unix", declared: "TIMESTAMP", postgres: "TIMESTAMP(3)", rows: seconds,
              spell: { _, at in "CAST(strftime('%s', '\(text(at))') AS INTEGER)" },
              julian: "julianday(OrderDate, 'unixepoch')", form: .unixTime(wholeSeconds: true)),
        Table(name: "Mixed", declared: "DATETIME", postgres: "TIMESTAMP(3)", rows: milliseconds, spell: { id, at in
            switch id {
            case 2, 7, 13: return "'\(text(at, separator: "T", fraction: 3, always: true))Z'"
            case 3, 6, 12: return "julianday('\(text(at, fraction: 3))')"
            case 4, 8, 10: return "CAST(strftime('%s', '\(text(at))') AS INTEGER)"
            default: return "'\(text(at))'"
            }
        }, julian: "(CASE WHEN typeof(OrderDate) = 'integer' THEN julianday(OrderDate, 'unixepoch') ELSE julianday(OrderDate) END)", form: .mixed),
        Table(name: "Stamped", declared: "DATETIMEOFFSET", postgres: "TIMESTAMPTZ(3)", rows: seconds,
              spell: { _, at in "'\(text(ODataDateTime(microsecondsSince1970: at.microsecondsSince1970 + 7_200_000_000), separator: "T"))+02:00'" },
              form: .text(DateTextLayout(separator: "T", precisions: [.second], suffix: "+02:00"))),
    ]

    /// A date-only key, for lookups by key.
    static let keyed = """
        CREATE TABLE "Days" ("Day" DATE PRIMARY KEY, "Note" VARCHAR(20));
        INSERT INTO "Days" VALUES ('2016-07-04', 'independence'), ('2017-01-01', 'new year');
        """

    /// The SQLite file's statements, for Python (``PythonSQLite``) to run.
    static var sqliteScript: String {
        var script = keyed + "\n"
        for table in tables {
            script += #"CREATE TABLE "\#(table.name)" ("id" INTEGER PRIMARY KEY, "OrderDate" \#(table.declared));"# + "\n"
            script += #"CREATE INDEX "\#(table.name)_OrderDate" ON "\#(table.name)" ("OrderDate");"# + "\n"
            for row in table.rows {
                let value = row.at.map { table.spell(row.id, $0) } ?? "NULL"
                script += #"INSERT INTO "\#(table.name)" ("id", "OrderDate") VALUES (\#(row.id), \#(value));"# + "\n"
            }
        }
        return script
    }

    /// The same rows on PostgreSQL, in timestamp and date columns.
    static var postgresScript: String {
        var script = keyed + "\n"
        for table in tables {
            script += #"CREATE TABLE "\#(table.name)" ("id" INTEGER PRIMARY KEY, "OrderDate" \#(table.postgres));"# + "\n"
            script += #"CREATE INDEX "\#(table.name)_OrderDate" ON "\#(table.name)" ("OrderDate");"# + "\n"
            for row in table.rows {
                let value = row.at.map { "'\(text($0, fraction: 3, always: true))\(table.isOffset ? "+00" : "")'" } ?? "NULL"
                script += #"INSERT INTO "\#(table.name)" ("id", "OrderDate") VALUES (\#(row.id), \#(value));"# + "\n"
            }
        }
        return script
    }

    /// `YYYY-MM-DD HH:MM:SS`, with `fraction` digits when the value has a fraction (or `always`).
    static func text(_ at: ODataDateTime, separator: Character = " ", dateOnly: Bool = false, fraction: Int = 0, always: Bool = false) -> String {
        let c = at.components
        func pad(_ value: Int, _ width: Int) -> String { String(repeating: "0", count: max(0, width - String(value).count)) + String(value) }
        var text = "\(pad(c.year, 4))-\(pad(c.month, 2))-\(pad(c.day, 2))"
        if dateOnly { return text }
        text += "\(separator)\(pad(c.hour, 2)):\(pad(c.minute, 2)):\(pad(c.second, 2))"
        if fraction > 0, always || c.microsecond != 0 { text += "." + String(pad(c.microsecond, 6).prefix(fraction)) }
        return text
    }

    /// An OData literal of an instant for a table's type.
    static func literal(_ text: String, for table: Table) -> String {
        table.isOffset ? "datetimeoffset'\(text)Z'" : "datetime'\(text)'"
    }

    /// The instant of a JSON date (`/Date(ms)/`, or ISO 8601 with an offset); nil for null.
    static func instant(_ json: JSONValue?) -> ODataDateTime? {
        guard case .string(let text)? = json else { return nil }
        if text.hasPrefix("/Date(") {
            return Int64(text.dropFirst(6).prefix { $0 == "-" || $0.isNumber }).map(ODataDateTime.init(millisecondsSince1970:))
        }
        return ODataDateTimeOffset.parse(text)?.utc
    }
}
