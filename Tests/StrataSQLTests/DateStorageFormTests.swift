import Foundation
import StrataCore
import StrataSQL
import Testing

/// The storage forms of SQLite date columns: how a sample of values is classified, how an instant
/// is written in a form, and which SQL compares a column with an instant. The end-to-end answers on
/// fixture databases are in `StrataServerTests/DateStorageFormServingTests`.
@Suite struct DateStorageFormTests {
    static func instant(_ text: String) -> ODataDateTime { ODataDateTime.parse(text)! }

    static func texts(_ values: String...) -> [DateSample] { values.map(DateSample.text) }

    @Test func classifiesTextLayouts() {
        #expect(DateStorageForm.classify(Self.texts("2016-07-04", "2017-01-01"), type: .dateTime)
            == .text(DateTextLayout(precisions: [.day])))
        #expect(DateStorageForm.classify(Self.texts("2016-07-04 10:00:00", "2017-01-01 00:00:00"), type: .dateTime)
            == .text(DateTextLayout(precisions: [.second])))
        // Python's str(datetime): no fraction when it is zero, six digits otherwise.
        #expect(DateStorageForm.classify(Self.texts("2016-07-04 10:00:00", "2017-01-01 00:00:00.250000"), type: .dateTime)
            == .text(DateTextLayout(precisions: [.second, .fraction(6)])))
        #expect(DateStorageForm.classify(Self.texts("2016-07-04T10:00:00.000Z", "2017-01-01T00:00:00.120Z"), type: .dateTime)
            == .text(DateTextLayout(separator: "T", precisions: [.fraction(3)], suffix: "Z")))
        #expect(DateStorageForm.classify(Self.texts("2016-07-04T12:00:00+02:00"), type: .dateTime)
            == .text(DateTextLayout(separator: "T", precisions: [.second], suffix: "+02:00")))
        #expect(DateStorageForm.classify(Self.texts("2016-07-04 10:00"), type: .dateTime)
            == .text(DateTextLayout(precisions: [.minute])))
        // Dates and date-times together still sort as text.
        #expect(DateStorageForm.classify(Self.texts("2016-07-04", "2016-07-04 10:00:00"), type: .dateTime)
            == .text(DateTextLayout(precisions: [.day, .second])))
    }

    @Test func strataTextAndEmptyColumnsHaveNoForm() {
        #expect(DateStorageForm.classify([], type: .dateTime) == nil)
        #expect(DateStorageForm.classify(Self.texts("2016-07-04 10:00:00.000", "2016-07-04 10:00:00.123456"), type: .dateTime) == nil)
        // Each value with its own offset: how Strata writes Edm.DateTimeOffset.
        #expect(DateStorageForm.classify(Self.texts("2016-07-04T10:00:00Z", "2016-07-04T10:00:00.5+02:00"), type: .dateTimeOffset) == nil)
    }

    @Test func classifiesNumbersAndMixtures() {
        #expect(DateStorageForm.classify([.integer(1_467_590_400), .integer(0)], type: .dateTime) == .unixTime(wholeSeconds: true))
        #expect(DateStorageForm.classify([.real(1_467_590_400.5), .integer(1_467_590_400)], type: .dateTime) == .unixTime(wholeSeconds: false))
        // A NUMERIC column keeps a Julian day at noon as an INTEGER.
        #expect(DateStorageForm.classify([.real(2_457_573.5), .integer(2_457_574)], type: .dateTime) == .julianDay)
        #expect(DateStorageForm.classify([.text("2016-07-04"), .real(2_457_573.5)], type: .dateTime) == .mixed)
        #expect(DateStorageForm.classify(Self.texts("2016-07-04 10:00:00", "2016-07-04T10:00:00"), type: .dateTime) == .mixed)
        #expect(DateStorageForm.classify(Self.texts("2016-07-04T10:00:00Z", "2016-07-04T10:00:00.5Z"), type: .dateTime) == .mixed)
        #expect(DateStorageForm.classify(Self.texts("2016-07-04T10:00:00+02:00", "2016-07-04T10:00:00-05:00"), type: .dateTime) == .mixed)
        #expect(DateStorageForm.classify(Self.texts("July 4th"), type: .dateTime) == .mixed)
    }

    @Test func writesValuesInTheColumnsForm() throws {
        let dates = DateStorageForm.text(DateTextLayout(precisions: [.day]))
        #expect(try dates.stored(.dateTime(Self.instant("2024-05-06T00:00:00")), column: "d", table: "t") == .string("2024-05-06"))
        let refused = #expect(throws: ODataError.self) {
            try dates.stored(.dateTime(Self.instant("2024-05-06T07:08:09")), column: "d", table: "t")
        }
        #expect(refused?.status == 400)
        #expect(refused?.message.contains("dates without a time of day") == true)

        let seconds = DateStorageForm.text(DateTextLayout(precisions: [.second]))
        #expect(try seconds.stored(.dateTime(Self.instant("2024-05-06T07:08:09")), column: "d", table: "t") == .string("2024-05-06 07:08:09"))
        #expect(throws: ODataError.self) { try seconds.stored(.dateTime(Self.instant("2024-05-06T07:08:09.5")), column: "d", table: "t") }

        let python = DateStorageForm.text(DateTextLayout(precisions: [.second, .fraction(6)]))
        #expect(try python.stored(.dateTime(Self.instant("2024-05-06T07:08:09.5")), column: "d", table: "t") == .string("2024-05-06 07:08:09.500000"))

        let berlin = DateStorageForm.text(DateTextLayout(separator: "T", precisions: [.second], suffix: "+02:00"))
        #expect(try berlin.stored(.dateTime(Self.instant("2024-05-06T07:08:09")), column: "d", table: "t") == .string("2024-05-06T09:08:09+02:00"))
        let offset = ODataDateTimeOffset.parse("2024-05-06T07:08:09-05:00")!
        #expect(try berlin.stored(.dateTimeOffset(offset), column: "d", table: "t") == .string("2024-05-06T14:08:09+02:00"))

        #expect(try DateStorageForm.unixTime(wholeSeconds: true).stored(.dateTime(Self.instant("2016-07-04T00:00:00")), column: "d", table: "t")
            == .int64(1_467_590_400))
        #expect(throws: ODataError.self) {
            try DateStorageForm.unixTime(wholeSeconds: true).stored(.dateTime(Self.instant("2016-07-04T00:00:00.5")), column: "d", table: "t")
        }
        #expect(try DateStorageForm.julianDay.stored(.dateTime(Self.instant("2016-07-04T00:00:00")), column: "d", table: "t") == .double(2_457_573.5))
        // A mixed column gets Strata's own form.
        #expect(try DateStorageForm.mixed.stored(.dateTime(Self.instant("2016-07-04T00:00:00")), column: "d", table: "t")
            == .dateTime(Self.instant("2016-07-04T00:00:00")))
    }

    @Test func readsNumbersAsSQLiteDoes() throws {
        // julianday('2016-07-04 10:30:00.123') as SQLite computes it.
        let julian = DateNumbers.julianDay(milliseconds: Self.instant("2016-07-04T10:30:00.123").millisecondsSince1970)
        #expect(DateNumbers.instant(julian) == Self.instant("2016-07-04T10:30:00.123"))
        #expect(DateNumbers.instant(2_457_574) == Self.instant("2016-07-04T12:00:00"))
        #expect(DateNumbers.instant(1_467_590_400.25) == Self.instant("2016-07-04T00:00:00.25"))
        #expect(DateNumbers.instant(unixSeconds: -1) == Self.instant("1969-12-31T23:59:59"))
        #expect(DateNumbers.instant(unixSeconds: .max) == nil)
        #expect(DateNumbers.instant(.nan) == nil)
    }

    /// The condition's SQL and binds on SQLite.
    static func sql(_ form: DateStorageForm, _ op: DateComparison, _ text: String) -> (String, [ODataValue]) {
        let statement = SQLRenderer.render(form.condition(.column(alias: "t0", name: "d"), op, instant(text)), dialect: .sqlite)
        return (statement.sql, statement.binds)
    }

    @Test func comparesTextAsStored() {
        let dates = DateStorageForm.text(DateTextLayout(precisions: [.day]))
        #expect(Self.sql(dates, .equal, "2016-07-04T00:00:00") == (#"("t0"."d" = ?)"#, [.string("2016-07-04")]))
        #expect(Self.sql(dates, .greaterOrEqual, "2017-01-01T00:00:00") == (#"("t0"."d" >= ?)"#, [.string("2017-01-01")]))
        // A time a column of dates cannot hold: no row equals it, and `lt` is `<=` the date before it.
        #expect(Self.sql(dates, .equal, "2016-07-04T10:00:00").0.contains("1 = 0"))
        #expect(Self.sql(dates, .less, "2016-07-04T10:00:00") == (#"("t0"."d" <= ?)"#, [.string("2016-07-04")]))
        #expect(Self.sql(dates, .greaterOrEqual, "2016-07-04T10:00:00") == (#"("t0"."d" > ?)"#, [.string("2016-07-04")]))
        // Several precisions: equal between the shortest and the longest spelling.
        let python = DateStorageForm.text(DateTextLayout(precisions: [.second, .fraction(6)]))
        #expect(Self.sql(python, .equal, "2016-07-04T10:00:00")
            == (#"("t0"."d" BETWEEN ? AND ?)"#, [.string("2016-07-04 10:00:00"), .string("2016-07-04 10:00:00.000000")]))
        #expect(Self.sql(python, .greater, "2016-07-04T10:00:00") == (#"("t0"."d" > ?)"#, [.string("2016-07-04 10:00:00.000000")]))
    }

    @Test func comparesNumbersByTheirMillisecond() {
        let (sql, binds) = Self.sql(.unixTime(wholeSeconds: true), .equal, "2016-07-04T00:00:00")
        #expect(sql == #"(("t0"."d" >= ?) AND ("t0"."d" < ?))"#)
        #expect(binds == [.double(1_467_590_399.9995), .double(1_467_590_400.0005)])
        let mixed = Self.sql(.mixed, .less, "2016-07-04T00:00:00").0
        #expect(mixed.contains("julianday(") && mixed.contains("'unixepoch'"))
    }

    /// Every spelling of every instant in a layout sorts with the instant, and the conditions pick
    /// exactly the instants they should, whatever spelling a writer chose.
    @Test func layoutsSortAsTime() throws {
        let layouts = [
            DateTextLayout(precisions: [.day, .minute, .second, .fraction(3), .fraction(6)]),
            DateTextLayout(separator: "T", precisions: [.second, .fraction(6)], suffix: "+02:00"),
            DateTextLayout(separator: "T", precisions: [.fraction(3)], suffix: "Z"),
        ]
        let instants = ["2016-07-03T23:59:59.999", "2016-07-04T00:00:00", "2016-07-04T00:00:00.001", "2016-07-04T00:00:00.5",
                        "2016-07-04T00:01:00", "2016-07-04T10:00:00", "2016-07-05T00:00:00"].map(Self.instant)
        for layout in layouts {
            var spelled: [(String, ODataDateTime)] = []
            for instant in instants {
                for precision in layout.precisions {
                    if let text = layout.render(instant, at: precision) { spelled.append((text, instant)) }
                }
            }
            for (a, x) in spelled {
                for (b, y) in spelled where x < y {
                    #expect(a < b, "\(a) sorts before \(b) in \(layout)")
                }
            }
        }
    }
}
