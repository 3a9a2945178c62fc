import Foundation

// The date and time values are Codable in their OData JSON forms, so that Swift models can hold
// them exactly (microseconds, offsets, times of day) rather than as `Date`.

extension ODataDateTime: Codable {
    /// Reads `"/Date(ms)/"` (an offset suffix is applied) or an ISO 8601 date-time.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = ODataJSON.parseDateTime(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\"\(text.prefix(40))\" is not an Edm.DateTime; expected \"/Date(1257008908440)/\" or \"2009-10-31T17:08:28.440\"")
        }
        self = value
    }

    /// Writes `"/Date(ms)/"` when the value is a whole number of milliseconds, else ISO 8601 with
    /// microseconds, which `/Date(ms)/` cannot carry.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if microsecondsSince1970 % 1000 == 0 {
            try container.encode("/Date(\(millisecondsSince1970))/")
        } else {
            try container.encode(isoString)
        }
    }
}

extension ODataDateTimeOffset: Codable {
    /// Reads ISO 8601 with an offset (none means UTC) or `"/Date(ms+hhmm)/"`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard case .dateTimeOffset(let value)? = try? ODataJSON.decode(.string(text), as: .dateTimeOffset) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\"\(text.prefix(40))\" is not an Edm.DateTimeOffset; expected \"2009-11-01T00:00:00+02:00\"")
        }
        self = value
    }

    /// Writes ISO 8601 with the offset, `2009-11-01T02:00:00+02:00`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(isoString)
    }
}

extension ODataTime: Codable {
    /// Reads an XML duration (`"PT13H20M"`) or a clock time (`"13:20:00"`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = ODataTime.parse(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\"\(text.prefix(40))\" is not an Edm.Time; expected \"PT13H20M\" or \"13:20:00\"")
        }
        self = value
    }

    /// Writes the XML duration, `PT13H20M`, as OData V2 does.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(durationString)
    }
}
