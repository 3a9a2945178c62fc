import Foundation
import StrataCore
import StrataServer

/// A list of items drawn with weights, in constant time per draw.
struct WeightedList<Item> {
    private var table: [Item] = []

    init(_ items: [(Item, Int)]) {
        for (item, weight) in items {
            table.append(contentsOf: repeatElement(item, count: weight))
        }
    }

    func draw(_ rng: inout SplitMix64) -> Item {
        table[rng.below(table.count)]
    }
}

/// The rows of a scaled CarDealer service.
struct CarDealerRows {
    let scale: Int
    var rng: SplitMix64

    init(scale: Int, seed: UInt64) {
        self.scale = scale
        self.rng = SplitMix64(seed: seed)
    }

    /// 2009-10-01 to 2012-12-31, the window of the demo's data.
    static let windowStart: Int64 = 1_254_355_200_000
    static let windowEnd: Int64 = 1_356_998_399_999

    /// The n-th of `count` moments spread evenly over the window, with a few minutes of jitter.
    mutating func moment(_ n: Int, of count: Int) -> ODataValue {
        let span = Self.windowEnd - Self.windowStart - 3_600_000
        let base = Self.windowStart + span * Int64(n) / Int64(max(count, 1))
        return .dateTime(ODataDateTime(millisecondsSince1970: base + Int64(rng.below(3_600_000))))
    }

    mutating func load(into loader: inout BulkLoader) async throws -> [(table: String, count: Int)] {
        let people = scale
        let cars = 2 * scale
        let ownerships = 2 * scale
        let services = scale
        let firstNames = WeightedList(Self.firstNames)
        let lastNames = WeightedList(Self.lastNames)

        try await loader.begin("Person", columns: ["personID", "firstName", "lastName", "ssn", "createDate"])
        for id in 1...people {
            let ssn: ODataValue = rng.chance(10) ? .null : .string(Self.digits(rng.below(1_000_000_000), width: 9))
            try await loader.append(.int32(Int32(id)), .string(firstNames.draw(&rng)), .string(lastNames.draw(&rng)), ssn,
                                    moment(id, of: people))
        }

        let models = WeightedList(Self.carModels.map { ($0, Self.makeWeight[$0.make] ?? 1) })
        try await loader.begin("Car", columns: ["carID", "make", "model", "manufactureDate", "createStamp"])
        for id in 1...cars {
            let model = models.draw(&rng)
            var built = ODataValue.null
            if !rng.chance(5) {
                let year = rng.int(model.from...model.to)
                let date = ODataDateTime(year: year, month: rng.int(1...12), day: rng.int(1...28), hour: rng.int(0...23), minute: rng.int(0...59))
                built = date.map(ODataValue.dateTime) ?? .null
            }
            try await loader.append(.int32(Int32(id)), .string(model.make), .string(model.model), built, moment(id, of: cars))
        }

        try await loader.begin("PersonCar", columns: ["personCarID", "personID", "carID", "createStamp"])
        for id in 1...ownerships {
            let person = rng.below(people) + 1
            try await loader.append(.int32(Int32(id)), .int32(Int32(person)), .int32(Int32(id)), moment(id, of: ownerships))
        }

        try await loader.begin("Maintenance", columns: ["maintenanceID", "description", "price", "createStamp"])
        for (index, kind) in Self.maintenanceKinds.enumerated() {
            try await loader.append(.int32(Int32(index + 1)), .string(kind.description), kind.cents.map(Self.money) ?? .null,
                                    .dateTime(ODataDateTime(millisecondsSince1970: Self.windowStart)))
        }

        let kinds = WeightedList(Self.maintenanceKinds.enumerated().map { ($0.offset, $0.element.frequency) })
        try await loader.begin("PersonCarMaintenance", columns: [
            "personCarMaintenanceID", "personCarID", "maintenanceID", "serviceDate", "mileage", "cost", "notes", "createStamp",
        ])
        for id in 1...services {
            let kindIndex = kinds.draw(&rng)
            let kind = Self.maintenanceKinds[kindIndex]
            var cost = ODataValue.null
            if let cents = kind.cents ?? (rng.chance(50) ? 20_000 : nil) {
                cost = Self.money(kind.varies ? cents + rng.int(-cents / 5...cents / 5) : cents)
            }
            let mileage: ODataValue = rng.chance(5) ? .null : .int32(Int32(rng.int(500...220_000)))
            let notes: ODataValue = rng.chance(20) ? .string(Self.notes[rng.below(Self.notes.count)]) : .null
            let when = moment(id, of: services)
            try await loader.append(.int32(Int32(id)), .int32(Int32(rng.below(ownerships) + 1)), .int32(Int32(kindIndex + 1)),
                                    when, mileage, cost, notes, when)
        }

        return [("Person", people), ("Car", cars), ("PersonCar", ownerships),
                ("Maintenance", Self.maintenanceKinds.count), ("PersonCarMaintenance", services)]
    }

    static func money(_ cents: Int) -> ODataValue {
        .decimal(Decimal(sign: cents < 0 ? .minus : .plus, exponent: -2, significand: Decimal(abs(cents))))
    }

    static func digits(_ value: Int, width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}

extension SplitMix64 {
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.upperBound - range.lowerBound + 1)
    }

    /// True with probability `percent` / 100.
    mutating func chance(_ percent: Int) -> Bool {
        below(100) < percent
    }
}
