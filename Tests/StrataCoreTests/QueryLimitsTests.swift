import Foundation
import StrataCore
import Testing

@Suite struct QueryLimitsTests {
    @Test func defaults() {
        let limits = QueryLimits.default
        #expect(limits.maxFilterDepth == 50)
        #expect(limits.maxFilterNodes == 500)
        #expect(limits.maxExpandDepth == 5)
        #expect(limits.maxExpandWidth == 20)
        #expect(limits.maxTop == 10_000)
        #expect(limits.maxQueryStringLength == 8192)
    }

    @Test func filterDepth() throws {
        let fifty = String(repeating: "(", count: 50) + "a" + String(repeating: ")", count: 50)
        #expect(try parseFilter(fifty) == .property("a"))
        #expect(errorMessage { () throws(ODataError) in try parseFilter("(" + fifty + ")") }
            == "$filter: the expression nests deeper than the limit of 50 levels at column 51")
        #expect(errorMessage { () throws(ODataError) in try parseFilter(String(repeating: "not ", count: 51) + "a") }
            == "$filter: the expression nests deeper than the limit of 50 levels at column 201")
        #expect(errorMessage { () throws(ODataError) in try parseFilter(String(repeating: "length(", count: 51) + "a") }
            == "$filter: the expression nests deeper than the limit of 50 levels at column 351")
        let shallow = QueryLimits(maxFilterDepth: 2)
        #expect(errorMessage { () throws(ODataError) in try QueryOptionParser.orderBy("-(-a)", limits: shallow) }
            == "$orderby: the expression nests deeper than the limit of 2 levels at column 3")
    }

    /// Nesting far beyond the limit is refused at the limit, long before the stack could run out.
    @Test func hugeNestingIsRefusedNotOverflowed() {
        for opener in ["(", "not ", "-", "length(", "isof(", "cast("] {
            let text = String(repeating: opener, count: 200_000) + "a"
            let message = errorMessage { () throws(ODataError) in try parseFilter(text) }
            #expect(message?.hasPrefix("$filter: the expression nests deeper than the limit of 50 levels") == true, "\(opener): \(message ?? "nil")")
        }
    }

    @Test func filterNodes() throws {
        // `a eq 1` is three nodes, each `or` one more: 125 clauses are 499 nodes.
        let clauses = { (n: Int) in Array(repeating: "a eq 1", count: n).joined(separator: " or ") }
        _ = try parseFilter(clauses(125))
        #expect(errorMessage { () throws(ODataError) in try parseFilter(clauses(126)) }
            == "$filter: the expression has more than the limit of 500 nodes at column 1257")
        let small = QueryLimits(maxFilterNodes: 3)
        #expect(try QueryOptionParser.filter("a eq 1", limits: small) == .property("a").eq(1))
        #expect(errorMessage { () throws(ODataError) in try QueryOptionParser.filter("not a eq 1", limits: small) } != nil)
    }

    @Test func expandDepthAndWidth() throws {
        #expect(try QueryOptionParser.expand("A/B/C/D/E").count == 1)
        #expect(errorMessage { () throws(ODataError) in try QueryOptionParser.expand("X,A/B/C/D/E/F") }
            == "$expand: the path 'A/B/C/D/E/F' is 6 levels deep, more than the limit of 5, at column 3")
        let twenty = (1...20).map { "N\($0)" }.joined(separator: ",")
        #expect(try QueryOptionParser.expand(twenty).count == 20)
        #expect(errorMessage { () throws(ODataError) in try QueryOptionParser.expand(twenty + ",N21") }
            == "$expand: 21 paths exceed the limit of 20")
        #expect(try QueryOptionParser.expand(twenty + ",N21", limits: QueryLimits(maxExpandWidth: 21)).count == 21)
    }

    @Test func topMaximum() throws {
        #expect(try QueryOptionParser.top("20000", limits: QueryLimits(maxTop: 20_000)) == 20_000)
        #expect(errorMessage { () throws(ODataError) in try QueryOptionParser.top("99999999999999999999999") }
            == "$top: 99999999999999999999999 exceeds the maximum of 10000; page through the rest with $skip or the response's __next link")
    }

    @Test func queryStringLength() throws {
        let exact = "x=" + String(repeating: "a", count: 8190)
        #expect(try QueryOptions(parsing: exact).customOptions.count == 1)
        #expect(try QueryOptions(parsing: "?" + exact).customOptions.count == 1)
        #expect(errorMessage { () throws(ODataError) in try QueryOptions(parsing: exact + "a") }
            == "The query string is 8193 bytes long, more than the limit of 8192")
        #expect(try QueryOptions(parsing: exact + "a", limits: QueryLimits(maxQueryStringLength: 9000)).customOptions.count == 1)
    }

    /// The worst inputs the default limits let through are parsed, bound and printed on a thread with a
    /// 512 KiB stack, smaller than any thread the server or a client runs requests on.
    @Test func worstCaseFitsInASmallStack() throws {
        // `not (` is two levels each.
        let deep = String(repeating: "not (", count: 25) + "personID eq 1" + String(repeating: ")", count: 25)
        let long = Array(repeating: "personID eq 1", count: 125).joined(separator: " or ")
        let arithmetic = "personID" + String(repeating: " add personID", count: 248) + " eq 1"
        let calls = String(repeating: "substring(", count: 50) + "firstName" + String(repeating: ",1)", count: 50) + " eq 'a'"
        let finished = LockedFlag()
        let thread = Thread {
            for text in [deep, long, arithmetic, calls] {
                guard let expression = try? parseFilter(text),
                      let bound = try? QueryTestModel.binder.bindFilter(expression, on: QueryTestModel.person),
                      bound.type == .boolean, (try? parseFilter(expression.text)) == expression else { return }
            }
            finished.set()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        let deadline = Date().addingTimeInterval(30)
        while !thread.isFinished && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(finished.value)
    }
}

/// A flag set on one thread and read on another.
final class LockedFlag: Sendable {
    private let lock = NSLock()
    // Guarded by `lock`: every access goes through `set()` or `value`, which hold it.
    private nonisolated(unsafe) var flag = false

    func set() { lock.lock(); flag = true; lock.unlock() }

    var value: Bool {
        lock.lock()
        defer { lock.unlock() }
        return flag
    }
}
