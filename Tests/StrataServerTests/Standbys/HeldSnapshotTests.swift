import Foundation
import StrataCore
import StrataSQL
@testable import StrataStorage
import Testing

/// The pieces of reads on standbys that need no database: a held snapshot's queue and end, and how
/// the change feed stitches windows read on different hosts (``ChangeCursor/merged(with:)``).
@Suite("Standbys: held snapshots and merged cursors")
struct HeldSnapshotTests {
    @Test("Reads run one at a time in the order asked; once closed, reads waiting and later ones fail with Expired")
    func queue() async throws {
        let held = HeldSnapshot(owner: ObjectIdentifier(HeldSnapshotTests.self), deadline: .now + .seconds(30))
        let first = Task { try await held.run { _ in 1 } }
        let second = Task { try await held.run { _ in 2 } }
        // The connection's side: two jobs, each given a connection (here: a fake one never used).
        var ran = 0
        while ran < 2, let job = await held.next() {
            await job(FakeConnection())
            ran += 1
        }
        #expect(Set([try await first.value, try await second.value]) == [1, 2])
        let waiting = Task { try await held.run { _ in 3 } }
        try await Task.sleep(for: .milliseconds(50))
        held.close()
        await #expect(throws: HeldSnapshot.Expired.self) { try await waiting.value }
        await #expect(throws: HeldSnapshot.Expired.self) { try await held.run { _ in 4 } }
        #expect(await held.next() == nil, "the connection's loop ends")
        #expect(!held.isOpen)
    }

    @Test("A snapshot past its deadline takes no read; its lease closes it when the last reference goes")
    func deadlineAndLease() async throws {
        let expired = HeldSnapshot(owner: ObjectIdentifier(HeldSnapshotTests.self), deadline: .now - .seconds(1))
        #expect(!expired.isOpen)
        await #expect(throws: HeldSnapshot.Expired.self) { try await expired.run { _ in 1 } }
        let held = HeldSnapshot(owner: ObjectIdentifier(HeldSnapshotTests.self), deadline: .now + .seconds(30))
        var lease: HeldSnapshot.Lease? = HeldSnapshot.Lease(held)
        #expect(lease?.snapshot.isOpen == true)
        lease = nil
        #expect(!held.isOpen, "released with its response")
    }

    @Test("Merged cursors: what either snapshot shows is delivered; running are only transactions neither shows")
    func mergedCursors() {
        // The standby showed 105 committed an instant before the primary did.
        let standby = PostgresSnapshot(xmin: 100, xmax: 110, inProgress: [103])
        let primary = PostgresSnapshot(xmin: 100, xmax: 112, inProgress: [103, 105, 111])
        let merged = standby.union(primary)
        #expect(merged == PostgresSnapshot(xmin: 103, xmax: 112, inProgress: [103, 111]))
        for xid in UInt64(95)..<UInt64(115) {
            #expect(merged.isVisible(xid) == (standby.isVisible(xid) || primary.isVisible(xid)), "xid \(xid)")
        }
        #expect(ChangeCursor.snapshot(primary).merged(with: .snapshot(standby)) == .snapshot(merged))
        // A newer snapshot that shows all the older one does is kept as it is.
        let older = PostgresSnapshot(xmin: 90, xmax: 100, inProgress: [95])
        let kept = older.union(primary)
        #expect((UInt64(85)..<UInt64(115)).allSatisfy { kept.isVisible($0) == primary.isVisible($0) })
        #expect(ChangeCursor.position(7).merged(with: .position(5)) == .position(7))
    }
}

/// A connection that is never asked anything (the queue test's reads ignore theirs).
private struct FakeConnection: DatabaseConnection {
    var dialect: SQLDialect { .postgres }
    func query(_ statement: SQLStatement, types: [EDMPrimitiveType?]) async throws -> SQLRows { SQLRows(columns: [], rows: []) }
    func execute(_ statement: SQLStatement) async throws {}
}
