import Foundation
import Logging
import PostgresNIO
import StrataCore
import StrataSQL

/// What `strata demo-data` is asked to create.
public struct ScaledDemoDataOptions: Sendable {
    /// The number of people; there are twice as many cars and ownerships, and as many maintenance records.
    public var scale: Int
    /// The service's name (a SQLite file in the data directory, or a PostgreSQL schema).
    public var service: String
    /// Directory for SQLite services and Strata's own data (as `strata serve --data`).
    public var dataDirectory: String
    /// A PostgreSQL database, or a SQLite file whose name names the service (as `strata serve --database`).
    public var database: DatabaseLocation?
    /// The seed of the pseudo-random generator: the same seed and scale give the same rows.
    public var seed: UInt64

    public init(scale: Int, service: String = "cardealer", dataDirectory: String = "./strata-data",
                database: DatabaseLocation? = nil, seed: UInt64 = ScaledDemoData.defaultSeed) {
        self.scale = scale
        self.service = service
        self.dataDirectory = dataDirectory
        self.database = database
        self.seed = seed
    }
}

/// What `strata demo-data` created.
public struct ScaledDemoDataSummary: Sendable, CustomStringConvertible {
    public var service: String
    /// Rows per table, in the order they were loaded.
    public var rows: [(table: String, count: Int)]
    public var seconds: Double
    public var location: String

    public var description: String {
        let counts = rows.map { "\($0.count) \($0.table)" }.joined(separator: ", ")
        return "Created \(service) in \(location): \(counts) in \(String(format: "%.1f", seconds)) s"
    }
}

/// A CarDealer service at any scale, for benchmarks and for trying Strata on more than a few hundred rows.
///
/// The schema is the demo's own (`Demo/SQL/cardealer/schema.<dialect>.sql`), created through the store's
/// `provision` like every service; the rows are generated here instead of read from `data.sql`:
///
/// | table | rows | |
/// |---|---|---|
/// | `Person` | scale | names drawn from weighted lists, 10% without `ssn` |
/// | `Car` | 2 × scale | make and model from the demo's list, 5% without `manufactureDate` |
/// | `PersonCar` | 2 × scale | car *n* belongs to one person drawn at random |
/// | `Maintenance` | 22 | the demo's kinds of work and their prices |
/// | `PersonCarMaintenance` | scale | work done on an ownership, with cost, mileage and sometimes notes |
///
/// Every value comes from a SplitMix64 generator with a fixed seed, so the same scale gives the same
/// rows on every machine and on both databases. Rows are loaded in one transaction by multi-row
/// `INSERT … VALUES` statements of a few hundred rows, every value bound.
///
/// One index is added beyond the demo's schema, for the benchmarks' `$filter` + `$orderby` scenario
/// on an indexed column: `IX_Person_lastName` on `Person(lastName, personID)` (with `COLLATE "C"` on
/// PostgreSQL, the collation Strata orders strings by). `firstName` stays without an index, for the
/// same scenario on a column without one. Both databases are analyzed after loading.
public enum ScaledDemoData {
    public static let defaultSeed: UInt64 = 0x000C_A4DE_A1E4_0100

    /// Creates the service and fills it. Fails if a service of that name exists already.
    public static func create(_ options: ScaledDemoDataOptions, logger: Logger) async throws -> ScaledDemoDataSummary {
        guard options.scale >= 1 else { throw ConfigurationError("--scale must be at least 1") }
        let dataDirectory = URL(fileURLWithPath: options.dataDirectory, isDirectory: true)
        switch options.database {
        case nil:
            let store = try await SQLiteServiceStore.open(directory: dataDirectory, singleFile: nil, counter: .none, logger: logger)
            return try await create(options, store: store, location: dataDirectory.appendingPathComponent("\(options.service).sqlite").path, logger: logger)
        case .sqliteFile(let path):
            // The file's name is the service's name, as when `strata serve --database FILE` serves it.
            let file = URL(fileURLWithPath: path)
            guard file.pathExtension == "sqlite" else {
                throw ConfigurationError("--database FILE must end in .sqlite: its name without the extension is the service's name")
            }
            var named = options
            named.service = file.deletingPathExtension().lastPathComponent
            let store = try await SQLiteServiceStore.open(directory: file.deletingLastPathComponent(), singleFile: nil, counter: .none, logger: logger)
            return try await create(named, store: store, location: file.path, logger: logger)
        case .postgres(let location):
            let client = PostgresClient(configuration: location.clientConfiguration, backgroundLogger: logger)
            return try await withThrowingTaskGroup(of: ScaledDemoDataSummary?.self) { group in
                group.addTask {
                    await client.run()
                    return nil
                }
                defer { group.cancelAll() }
                let store = PostgresServiceStore(client: client, counter: .none, logger: logger)
                return try await create(options, store: store, location: "\(location) schema \(options.service)", logger: logger)
            }
        }
    }

    static func create(_ options: ScaledDemoDataOptions, store: any ServiceStore, location: String, logger: Logger) async throws -> ScaledDemoDataSummary {
        do {
            let summary = try await fill(options, store: store, location: location, logger: logger)
            await store.close()
            return summary
        } catch {
            await store.close()
            throw error
        }
    }

    private static func fill(_ options: ScaledDemoDataOptions, store: any ServiceStore, location: String, logger: Logger) async throws -> ScaledDemoDataSummary {
        guard ServiceName.isValid(options.service), !ServiceName.reserved.contains(options.service) else {
            throw ConfigurationError("\(options.service) cannot be a service name")
        }
        let started = ContinuousClock.now
        let system = SystemDatabase(database: store.system, schema: store.systemSchema)
        try await system.migrate(logger: logger)
        let files = try DemoFiles(service: "cardealer", dialect: store.dialect)
        guard try await store.provision(options.service, scripts: [files.schema]) else {
            throw ConfigurationError("the service \(options.service) exists already in \(location); remove it first")
        }
        guard let storage = try await store.discover().first(where: { $0.name == options.service }) else {
            throw StorageError.failed("the service \(options.service) was created but cannot be found")
        }
        let rows: [(table: String, count: Int)]
        do {
            rows = try await storage.database.transaction { connection in
                var loader = Loader(connection: connection, schema: storage.schema)
                var generator = CarDealerRows(scale: options.scale, seed: options.seed)
                let counts = try await generator.load(into: &loader)
                try await loader.finish()
                return counts
            }
        } catch {
            try? await remove(storage)
            throw error
        }
        try await system.saveServiceSettings(options.service, ServiceSettings(namespace: files.namespace, title: files.title))
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        return ScaledDemoDataSummary(service: options.service, rows: rows, seconds: seconds, location: location)
    }

    /// Undoes a half-made service: drops its schema, or deletes its file.
    private static func remove(_ storage: ServiceStorage) async throws {
        if let schema = storage.schema {
            try await storage.database.transaction { connection in
                try await connection.execute("DROP SCHEMA \(identifier: schema) CASCADE")
            }
        } else if let database = storage.database as? SQLiteDatabase {
            let path = database.path
            await database.close()
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
    }
}

/// Writes rows with multi-row `INSERT … VALUES` statements, every value bound.
struct Loader {
    let connection: any DatabaseConnection
    let schema: String?
    var dialect: SQLDialect { connection.dialect }
    /// Rows per statement: few enough for SQLite's and PostgreSQL's limits on bound values.
    static let rowsPerStatement = 500

    private var table = ""
    private var columns: [String] = []
    private var pending: [ODataValue] = []
    private var pendingRows = 0
    private var fullStatementSQL: SQLStatement?

    init(connection: any DatabaseConnection, schema: String?) {
        self.connection = connection
        self.schema = schema
    }

    func qualified(_ table: String) -> TableName {
        TableName(schema: schema, name: table)
    }

    /// Starts a table: flushes the previous one's rows.
    mutating func begin(_ table: String, columns: [String]) async throws {
        try await flush()
        self.table = table
        self.columns = columns
        fullStatementSQL = nil
        pending.reserveCapacity(columns.count * Self.rowsPerStatement)
    }

    mutating func append(_ row: ODataValue...) async throws {
        precondition(row.count == columns.count, "a row of \(table) needs \(columns.count) values")
        pending.append(contentsOf: row)
        pendingRows += 1
        if pendingRows == Self.rowsPerStatement { try await flush() }
    }

    mutating func flush() async throws {
        guard pendingRows > 0 else { return }
        let statement: SQLStatement
        if pendingRows == Self.rowsPerStatement, let full = fullStatementSQL {
            statement = full.rebinding(pending)
        } else {
            statement = insertStatement()
            if pendingRows == Self.rowsPerStatement { fullStatementSQL = statement }
        }
        try await connection.execute(statement)
        pending.removeAll(keepingCapacity: true)
        pendingRows = 0
    }

    /// `INSERT INTO table (columns) VALUES (…), (…)` for the pending rows, every value bound.
    private func insertStatement() -> SQLStatement {
        let rows = stride(from: 0, to: pending.count, by: columns.count).map { start -> SQL in
            "(\(SQL.binds(Array(pending[start..<(start + columns.count)]))))"
        }
        return SQLStatement("INSERT INTO \(qualified(table)) (\(SQL.identifiers(columns))) VALUES \(SQL.joined(rows))", dialect: dialect)
    }

    /// Flushes, adds the benchmarks' index, lets PostgreSQL's sequences continue after the ids
    /// written here, and updates the planners' statistics.
    mutating func finish() async throws {
        try await flush()
        let collate: SQL = dialect == .postgres ? " COLLATE \"C\"" : ""
        try await connection.execute(
            "CREATE INDEX \(identifier: "IX_Person_lastName") ON \(qualified("Person")) (\(identifier: "lastName")\(collate), \(identifier: "personID"))")
        if let schema {
            try await PostgresServiceStore.resetSequences(schema: schema, connection)
            for table in ["Person", "Car", "PersonCar", "Maintenance", "PersonCarMaintenance"] {
                try await connection.execute("ANALYZE \(qualified(table))")
            }
        } else {
            try await connection.execute("ANALYZE")
        }
    }
}

/// SplitMix64, as `Scripts/generate-demo-data.py` uses: small, and the same everywhere.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `0..<n`.
    mutating func below(_ n: Int) -> Int {
        precondition(n > 0)
        let bound = UInt64(n)
        let limit = UInt64.max - UInt64.max % bound
        while true {
            let x = next()
            if x < limit { return Int(x % bound) }
        }
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.upperBound - range.lowerBound + 1)
    }

    /// True with probability `percent` / 100.
    mutating func chance(_ percent: Int) -> Bool {
        below(100) < percent
    }
}

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

    mutating func load(into loader: inout Loader) async throws -> [(table: String, count: Int)] {
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

    // The demo's lists (Scripts/generate-demo-data.py), shortened where it changes nothing.

    static let firstNames: [(String, Int)] = [
        ("James", 6), ("John", 6), ("Robert", 5), ("Michael", 6), ("William", 5), ("David", 6),
        ("Richard", 4), ("Joseph", 4), ("Thomas", 4), ("Charles", 3), ("Christopher", 4),
        ("Daniel", 4), ("Matthew", 4), ("Anthony", 3), ("Mark", 3), ("Donald", 2), ("Steven", 3),
        ("Paul", 3), ("Andrew", 3), ("Joshua", 3), ("Kevin", 3), ("Brian", 3), ("George", 2),
        ("Edward", 2), ("Ronald", 2), ("Timothy", 2), ("Jason", 3), ("Jeffrey", 2), ("Ryan", 3),
        ("Jacob", 2), ("Gary", 2), ("Eric", 2), ("Jonathan", 2), ("Stephen", 2), ("Larry", 1),
        ("Justin", 2), ("Scott", 2), ("Brandon", 2), ("Frank", 1), ("Gregory", 1), ("Raymond", 1),
        ("Patrick", 2), ("Sean", 2), ("Bob", 1), ("Carlos", 2), ("Luis", 2), ("José", 2),
        ("André", 1), ("Björn", 1), ("Søren", 1), ("François", 1), ("Łukasz", 1), ("Hiroshi", 1),
        ("Wei", 1), ("Rajesh", 1), ("Mohammed", 1), ("Dmitri", 1), ("Liam", 1), ("Declan", 1),
        ("Mary", 5), ("Patricia", 4), ("Jennifer", 5), ("Linda", 4), ("Elizabeth", 4),
        ("Barbara", 3), ("Susan", 3), ("Jessica", 4), ("Sarah", 4), ("Karen", 3), ("Nancy", 2),
        ("Lisa", 3), ("Betty", 1), ("Margaret", 2), ("Sandra", 2), ("Ashley", 3), ("Kimberly", 3),
        ("Emily", 3), ("Donna", 2), ("Michelle", 3), ("Dorothy", 1), ("Carol", 2), ("Amanda", 3),
        ("Melissa", 3), ("Deborah", 2), ("Stephanie", 3), ("Rebecca", 2), ("Laura", 3),
        ("Sharon", 2), ("Cynthia", 2), ("Kathleen", 2), ("Amy", 2), ("Shirley", 1), ("Angela", 2),
        ("Helen", 1), ("Anna", 2), ("Brenda", 1), ("Pamela", 1), ("Nicole", 2), ("Emma", 2),
        ("Samantha", 2), ("Katherine", 2), ("Christine", 2), ("Rachel", 2), ("Megan", 2),
        ("Maria", 2), ("Siobhan", 1), ("Zoë", 1), ("Chloë", 1), ("Renée", 1), ("Noémie", 1),
        ("Mónica", 1), ("Ingrid", 1), ("Priya", 1), ("Mei", 1), ("Yuki", 1), ("Aisha", 1),
    ]

    static let lastNames: [(String, Int)] = [
        ("Smith", 8), ("Johnson", 7), ("Williams", 6), ("Brown", 6), ("Jones", 6), ("Miller", 5),
        ("Davis", 5), ("Wilson", 4), ("Anderson", 4), ("Taylor", 4), ("Thomas", 3), ("Moore", 3),
        ("Jackson", 3), ("Martin", 3), ("Lee", 3), ("Thompson", 3), ("White", 3), ("Harris", 3),
        ("Clark", 3), ("Lewis", 3), ("Robinson", 2), ("Walker", 2), ("Young", 2), ("Allen", 2),
        ("King", 2), ("Wright", 2), ("Scott", 2), ("Hill", 2), ("Green", 2), ("Adams", 2),
        ("Baker", 2), ("Nelson", 2), ("Carter", 2), ("Mitchell", 2), ("Roberts", 2), ("Turner", 2),
        ("Phillips", 2), ("Campbell", 2), ("Parker", 2), ("Evans", 2), ("Edwards", 2),
        ("Collins", 2), ("Stewart", 2), ("Morris", 2), ("Murphy", 2), ("Cook", 2), ("Rogers", 2),
        ("Reed", 1), ("Bailey", 1), ("Cooper", 1), ("Richardson", 1), ("Cox", 1), ("Howard", 1),
        ("Ward", 1), ("Peterson", 1), ("Gray", 1), ("Watson", 1), ("Brooks", 1), ("Kelly", 1),
        ("Sanders", 1), ("Price", 1), ("Bennett", 1), ("Wood", 1), ("Barnes", 1), ("Ross", 1),
        ("Henderson", 1), ("Coleman", 1), ("Jenkins", 1), ("Perry", 1), ("Powell", 1), ("Long", 1),
        ("Patterson", 1), ("Hughes", 1), ("Flores", 1), ("Washington", 1), ("Butler", 1),
        ("Simmons", 1), ("Foster", 1), ("Bryant", 1), ("Alexander", 1), ("Russell", 1),
        ("Griffin", 1), ("Hayes", 1), ("Myers", 1), ("Ford", 1), ("Hamilton", 1), ("Graham", 1),
        ("Sullivan", 1), ("Wallace", 1), ("Samson", 1), ("Fitzgerald", 1), ("McDonald", 1),
        ("MacLeod", 1), ("O'Brien", 2), ("O'Connor", 2), ("O'Neill", 1), ("O'Malley", 1),
        ("D'Angelo", 1), ("D'Souza", 1), ("García", 2), ("Rodríguez", 2), ("Martínez", 2),
        ("Hernández", 2), ("López", 1), ("González", 1), ("Pérez", 1), ("Sánchez", 1),
        ("Ramírez", 1), ("Núñez", 1), ("Müller", 1), ("Schröder", 1), ("Weiß", 1), ("Becker", 1),
        ("Kowalski", 1), ("Nowak", 1), ("Dvořák", 1), ("Novák", 1), ("Lindström", 1),
        ("Johansson", 1), ("Nguyen", 2), ("Tran", 1), ("Kim", 2), ("Park", 1), ("Chen", 2),
        ("Wang", 1), ("Li", 1), ("Patel", 2), ("Shah", 1), ("Singh", 1), ("Tanaka", 1),
        ("Yamamoto", 1), ("Ivanov", 1), ("Rossi", 1), ("Russo", 1), ("Dubois", 1), ("Lefèvre", 1),
        ("Smith-Jones", 1), ("Van der Berg", 1), ("de la Cruz", 1),
    ]

    struct CarModel {
        var make: String
        var model: String
        var from: Int
        var to: Int
    }

    static let carModels: [CarModel] = [
        ("Ford", "Explorer", 1991, 2012), ("Ford", "Mustang", 1965, 2012), ("Ford", "F-150", 1975, 2012),
        ("Ford", "Focus", 2000, 2012), ("Ford", "Taurus", 1986, 2012), ("Ford", "Escape", 2001, 2012),
        ("Chevrolet", "Malibu", 1997, 2012), ("Chevrolet", "Impala", 2000, 2012),
        ("Chevrolet", "Silverado", 1999, 2012), ("Chevrolet", "Corvette", 1953, 2012),
        ("Toyota", "Camry", 1983, 2012), ("Toyota", "Corolla", 1968, 2012), ("Toyota", "Prius", 2001, 2012),
        ("Toyota", "RAV4", 1996, 2012), ("Honda", "Accord", 1976, 2012), ("Honda", "Civic", 1973, 2012),
        ("Honda", "CR-V", 1997, 2012), ("Honda", "Odyssey", 1995, 2012),
        ("Nissan", "Altima", 1993, 2012), ("Nissan", "Sentra", 1982, 2012), ("Nissan", "Rogue", 2008, 2012),
        ("Dodge", "Grand Caravan", 1987, 2012), ("Dodge", "Charger", 2006, 2012),
        ("Jeep", "Wrangler", 1987, 2012), ("Jeep", "Grand Cherokee", 1993, 2012),
        ("Volkswagen", "Jetta", 1980, 2012), ("Volkswagen", "Golf", 1985, 2012),
        ("Subaru", "Outback", 1995, 2012), ("Subaru", "Forester", 1998, 2012),
        ("Hyundai", "Sonata", 1989, 2012), ("Hyundai", "Elantra", 1992, 2012),
        ("Kia", "Optima", 2001, 2012), ("Kia", "Soul", 2010, 2012),
        ("BMW", "3 Series", 1977, 2012), ("BMW", "X5", 2000, 2012),
        ("Mercedes-Benz", "C-Class", 1994, 2012), ("Mercedes-Benz", "E-Class", 1994, 2012),
        ("Audi", "A4", 1996, 2012), ("Mazda", "Mazda3", 2004, 2012), ("Mazda", "MX-5 Miata", 1990, 2012),
        ("GMC", "Sierra", 1999, 2012), ("Chrysler", "Town & Country", 1990, 2012),
        ("Buick", "LaCrosse", 2005, 2012), ("Cadillac", "Escalade", 1999, 2012),
        ("Lexus", "RX 350", 2007, 2012), ("Acura", "MDX", 2001, 2012), ("Volvo", "XC90", 2003, 2012),
        ("Pontiac", "G6", 2005, 2010), ("Saturn", "Ion", 2003, 2007), ("Mercury", "Grand Marquis", 1983, 2011),
        ("Tesla", "Roadster", 2008, 2012), ("Mini", "Cooper", 2002, 2012),
    ].map { CarModel(make: $0.0, model: $0.1, from: $0.2, to: $0.3) }

    static let makeWeight: [String: Int] = [
        "Ford": 5, "Chevrolet": 5, "Toyota": 5, "Honda": 5, "Nissan": 4, "Dodge": 3, "Jeep": 3,
        "Volkswagen": 2, "Subaru": 2, "Hyundai": 2, "Kia": 2, "BMW": 2, "Mercedes-Benz": 2, "Audi": 1,
        "Mazda": 2, "GMC": 2, "Chrysler": 2, "Buick": 1, "Cadillac": 1, "Lexus": 1, "Acura": 1,
        "Volvo": 1, "Pontiac": 1, "Saturn": 1, "Mercury": 1, "Tesla": 1, "Mini": 1,
    ]

    struct MaintenanceKind {
        var description: String
        var cents: Int?
        var frequency: Int
        var varies: Bool
    }

    static let maintenanceKinds: [MaintenanceKind] = [
        ("Oil change", 2999, 30, false), ("Synthetic oil change", 5999, 12, false),
        ("Tire rotation", 1999, 16, false), ("Wheel alignment", 7999, 6, false),
        ("Brake pads - front", 14999, 7, true), ("Brake pads - rear", 13999, 5, true),
        ("Brake rotor replacement", 24999, 3, true), ("Brake fluid flush", 8999, 3, false),
        ("Transmission fluid service", 12999, 4, true), ("Coolant flush", 9999, 4, false),
        ("Battery replacement", 11999, 4, true), ("Engine air filter replacement", 2499, 8, false),
        ("Cabin air filter replacement", 3499, 5, false), ("Spark plug replacement", 11999, 3, true),
        ("Timing belt replacement", 49999, 1, true), ("Serpentine belt replacement", 8999, 2, true),
        ("Wiper blade replacement", 2999, 5, false), ("A/C recharge", 12999, 2, false),
        ("Tire replacement (set of 4)", 49999, 3, true), ("State safety inspection", 3500, 6, false),
        ("Check engine light diagnostic", 8999, 3, false), ("Warranty repair", nil, 2, true),
    ].map { MaintenanceKind(description: $0.0, cents: $0.1, frequency: $0.2, varies: $0.3) }

    static let notes = [
        "Customer declined cabin air filter.", "Recommended rear brakes at next visit.", "Used OEM parts.",
        "Customer supplied own parts.", "Topped off washer fluid at no charge.",
        "Tires at 4/32\", recommend replacement soon.", "Noise from front left wheel, could not reproduce.",
        "Coupon applied: 10% off.", "Waited in lobby.", "Loaner car provided.",
        "Next oil change due in 3,000 miles.", "Reset maintenance reminder.",
    ]
}
