import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// The planner applies access decided before planning; it never decides any itself.
@Suite("Read access")
struct ReadAccessTests {
    @Test("A table whose access was not decided before planning is refused, never read unrestricted")
    func undecidedTableIsRefused() throws {
        var access = ReadAccess()
        access.add("Person", .unrestricted)
        #expect(try access.rowFilter("Person") == nil)
        let error = #expect(throws: ODataError.self) { try access.rowFilter("Car") }
        #expect(error?.status == 500)
    }
}
