import Foundation
import StrataCore
@testable import StrataStorage
import Testing

/// The pieces of standby support that need no PostgreSQL: positions, lag limits, multi-host URLs,
/// and the lag computed from the primary's positions.
@Suite("Standbys: parsing")
struct StandbyParsingTests {
    @Test("Log positions read and print as PostgreSQL writes them, order by offset, and refuse anything else")
    func positions() throws {
        let position = try #require(ReadPosition("16/B374D848"))
        #expect(position.offset == 0x16_B374_D848)
        #expect(position.description == "16/B374D848")
        #expect(ReadPosition("0/0")?.offset == 0)
        #expect(try #require(ReadPosition("0/16B6C50")) < position)
        for bad in ["", "/", "16", "16/", "/1", "1/2/3", "g/1", "123456789/1", "1/ 2", "-1/2", "0x1/2"] {
            #expect(ReadPosition(bad) == nil, "\(bad)")
        }
    }

    @Test("--max-replica-lag takes a time or a size, and nothing else")
    func lagLimits() {
        #expect(ReplicaLagLimit("5s") == .time(.seconds(5)))
        #expect(ReplicaLagLimit("500ms") == .time(.milliseconds(500)))
        #expect(ReplicaLagLimit("2m") == .time(.seconds(120)))
        #expect(ReplicaLagLimit("16MB") == .bytes(16 << 20))
        #expect(ReplicaLagLimit("512kB") == .bytes(512 << 10))
        #expect(ReplicaLagLimit("4096B") == .bytes(4096))
        for bad in ["", "5", "s", "5 parsecs", "-5s", "1.5s", "99999999999GB", "5ss"] {
            #expect(ReplicaLagLimit(bad) == nil, "\(bad)")
        }
        #expect(ReplicaLagLimit("5s")?.description == "5s")
        #expect(ReplicaLagLimit("16MB")?.description == "16MB")
    }

    @Test("--database takes several hosts as libpq does; the writable one is looked for among them")
    func multiHost() throws {
        let location = try PostgresLocation(url: "postgres://app:secret@db1:5432,db2:5433,db3/shop?target_session_attrs=read-write&sslmode=disable")
        #expect(location.host == "db1" && location.port == 5432)
        #expect(location.otherHosts == [.init(host: "db2", port: 5433), .init(host: "db3", port: 5432)])
        #expect(location.username == "app" && location.password == "secret" && location.database == "shop" && location.sslMode == "disable")
        #expect(location.candidates.map { "\($0.host):\($0.port)" } == ["db1:5432", "db2:5433", "db3:5432"])
        #expect(location.candidates.allSatisfy { $0.otherHosts.isEmpty && $0.password == "secret" })
        // The description names every host and parses back to the same location.
        #expect(try PostgresLocation(url: location.description).candidates.map(\.host) == ["db1", "db2", "db3"])
        #expect(try PostgresLocation(url: "postgres://u@[::1]:5432,[::2]:5433/d").otherHosts == [.init(host: "::2", port: 5433)])
        #expect(throws: ConfigurationError.self) { try PostgresLocation(url: "postgres://u@db1,db2/d?target_session_attrs=any") }
        #expect(throws: ConfigurationError.self) { try PostgresLocation(url: "postgres://u@db1,,db2/d") }
        #expect(throws: ConfigurationError.self) { try PostgresLocation(url: "postgres://u@db1:99999,db2/d") }
        #expect(throws: ConfigurationError.self) { try PostgresLocation(url: "postgres://u@db1:x,db2/d") }
        #expect(try PostgresLocation(url: "postgres://u@db1/d").hasSeveralHosts == false)
    }

    @Test("A standby's lag: zero once it has replayed the primary's position, else bytes behind and time since the primary passed it")
    func lag() throws {
        var positions = PrimaryPositions()
        let start = ContinuousClock.now
        let (a, b, c) = (ReadPosition(offset: 1000), ReadPosition(offset: 2000), ReadPosition(offset: 3000))
        #expect(positions.lag(of: a, at: start) == nil)
        positions.add(a, at: start)
        positions.add(b, at: start + .seconds(1))
        positions.add(b, at: start + .seconds(2))   // no new sample for an unchanged position
        positions.add(c, at: start + .seconds(3))
        #expect(positions.samples.count == 3)
        let now = start + .seconds(5)
        #expect(try #require(positions.lag(of: c, at: now)) == (0, .zero))
        let behind = try #require(positions.lag(of: ReadPosition(offset: 1500), at: now))
        #expect(behind.bytes == 1500 && behind.time == .seconds(4), "the primary passed 1500 at the 1 s sample")
        let recent = try #require(positions.lag(of: b, at: now))
        #expect(recent.bytes == 1000 && recent.time == .seconds(2))
    }
}
