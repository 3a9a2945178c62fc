import StrataCore

/// One stored value of a date column, as SQLite's `typeof` sees it.
package enum DateSample: Sendable, Hashable {
    case text(String)
    case integer(Int64)
    case real(Double)
    /// A BLOB: no date form reads it.
    case other
}

extension DateStorageForm {
    /// The form of a column's values, from a sample of them; nil when they are Strata's own form
    /// (text `YYYY-MM-DD HH:MM:SS.SSS` for `Edm.DateTime`, ISO 8601 text with each value's offset
    /// for `Edm.DateTimeOffset`) or when there are none, so that Strata writes its own form.
    ///
    /// - Text in one layout (``DateTextLayout``) is that layout; text in several is ``mixed``, except
    ///   that an `Edm.DateTimeOffset` column with each value's own offset is Strata's form.
    /// - INTEGERs only are Unix seconds; REALs within SQLite's Julian range are Julian days, with
    ///   the INTEGERs a NUMERIC column made of whole ones; REALs beyond it are Unix seconds.
    /// - Anything else — text and numbers together, text that is no date — is ``mixed``.
    package static func classify(_ samples: [DateSample], type: EDMPrimitiveType) -> DateStorageForm? {
        guard !samples.isEmpty else { return nil }
        var shapes: [TextShape] = []
        var integers: [Int64] = []
        var reals: [Double] = []
        for sample in samples {
            switch sample {
            case .text(let text):
                guard let shape = TextShape(text) else { return .mixed }
                shapes.append(shape)
            case .integer(let value): integers.append(value)
            case .real(let value): reals.append(value)
            case .other: return .mixed
            }
        }
        if shapes.isEmpty { return numeric(integers: integers, reals: reals) }
        guard integers.isEmpty, reals.isEmpty else { return .mixed }
        return text(shapes, type: type)
    }

    private static func numeric(integers: [Int64], reals: [Double]) -> DateStorageForm {
        if reals.isEmpty { return .unixTime(wholeSeconds: true) }
        let numbers = reals + integers.map(Double.init)
        let julian = (1_721_425.5..<DateNumbers.julianDayLimit)
        if numbers.allSatisfy(julian.contains) { return .julianDay }
        if numbers.allSatisfy({ !(0..<DateNumbers.julianDayLimit).contains($0) }) { return .unixTime(wholeSeconds: false) }
        return .mixed
    }

    private static func text(_ shapes: [TextShape], type: EDMPrimitiveType) -> DateStorageForm? {
        let separators = Set(shapes.compactMap(\.separator))
        let suffixes = Set(shapes.map(\.suffix))
        let precisions = Set(shapes.map(\.precision)).sorted()
        let datesOnly = shapes.contains { $0.precision == .day }
        let consistent = separators.count <= 1 && suffixes.count == 1 && !(datesOnly && suffixes != [""])
            && !(suffixes == ["Z"] && precisions.count > 1)
        if type == .dateTimeOffset, !consistent, !datesOnly, !suffixes.contains("") {
            // Each value with its own offset: what Strata writes, and compares as instants.
            return nil
        }
        guard consistent, let suffix = suffixes.first else { return .mixed }
        let layout = DateTextLayout(separator: separators.first ?? " ", precisions: precisions, suffix: suffix)
        if type == .dateTime, layout.separator == " ", suffix.isEmpty, Set(precisions).isSubset(of: [.fraction(3), .fraction(6)]) {
            // Strata's own text: milliseconds, or microseconds where there are any.
            return nil
        }
        return .text(layout)
    }
}

/// The shape of one text value: `YYYY-MM-DD`, then optionally a separator, `HH:MM`, `:SS`, `.f…`,
/// and a suffix `Z` or `±HH:MM`. Nil for text that is not a date-time in one of these spellings.
struct TextShape: Hashable {
    var separator: Character?
    var precision: DatePrecision
    var suffix: String

    init?(_ text: String) {
        let bytes = Array(text.utf8)
        func digits(_ range: Range<Int>) -> Bool {
            range.upperBound <= bytes.count && bytes[range].allSatisfy { $0 >= 48 && $0 <= 57 }
        }
        func byte(_ index: Int, _ expected: Character) -> Bool {
            index < bytes.count && bytes[index] == expected.asciiValue
        }
        guard ODataDateTime.parse(text) != nil,
              digits(0..<4), byte(4, "-"), digits(5..<7), byte(7, "-"), digits(8..<10) else { return nil }
        guard bytes.count > 10 else {
            (separator, precision, suffix) = (nil, .day, "")
            return
        }
        guard byte(10, " ") || byte(10, "T"), digits(11..<13), byte(13, ":"), digits(14..<16) else { return nil }
        separator = Character(UnicodeScalar(bytes[10]))
        var index = 16
        precision = .minute
        if byte(index, ":") {
            guard digits(17..<19) else { return nil }
            precision = .second
            index = 19
            if byte(index, ".") {
                var end = 20
                while end < bytes.count, bytes[end] >= 48, bytes[end] <= 57 { end += 1 }
                guard end > 20 else { return nil }
                precision = .fraction(end - 20)
                index = end
            }
        }
        let rest = String(decoding: bytes[index...], as: UTF8.self)
        let offset = Array(rest.utf8)
        let isOffset = offset.count == 6 && (offset[0] == 43 || offset[0] == 45) && offset[3] == 58
            && [1, 2, 4, 5].allSatisfy { offset[$0] >= 48 && offset[$0] <= 57 }
        guard rest.isEmpty || rest == "Z" || isOffset else { return nil }
        suffix = rest
    }
}
