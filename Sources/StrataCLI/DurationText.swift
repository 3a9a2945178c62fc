import Foundation
import ArgumentParser

/// Durations as options take them: `500ms`, `10s`, `2m`, `1h`, `30d`, or a plain number of seconds
/// (`2.5`). `0` is zero, which the options that allow it read as "no limit".
enum DurationText {
    static func parse(_ text: String, option: String) throws -> Duration {
        let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400)]
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        var number = Substring(trimmed)
        var scale = 1.0
        if let unit = units.first(where: { trimmed.hasSuffix($0.suffix) && Double(trimmed.dropLast($0.suffix.count)) != nil }) {
            number = trimmed.dropLast(unit.suffix.count)
            scale = unit.seconds
        }
        guard let value = Double(number), value.isFinite, value >= 0, value * scale <= 86_400 * 365 else {
            throw ValidationError("\(option) takes a duration such as 500ms, 10s, 2m, 1h or 30d, not \(text)")
        }
        return .milliseconds(Int64((value * scale * 1000).rounded()))
    }

    /// `10s`, `500ms`, `30d`: a duration as an option takes it.
    static func option(_ duration: Duration) -> String {
        let milliseconds = duration / .milliseconds(1)
        if milliseconds >= 86_400_000, milliseconds.truncatingRemainder(dividingBy: 86_400_000) == 0 { return "\(Int(milliseconds / 86_400_000))d" }
        if milliseconds.truncatingRemainder(dividingBy: 1000) == 0 { return "\(Int(milliseconds / 1000))s" }
        return "\(Int(milliseconds))ms"
    }

    /// `10 s`, `500 ms`: how a duration is shown.
    static func format(_ duration: Duration) -> String {
        let milliseconds = duration / .milliseconds(1)
        if milliseconds.truncatingRemainder(dividingBy: 1000) == 0 { return "\(Int(milliseconds / 1000)) s" }
        return "\(Int(milliseconds)) ms"
    }
}
