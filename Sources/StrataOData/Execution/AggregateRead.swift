import StrataCore
import StrataSQL
import StrataStorage

/// Runs a planned `$apply` (``AggregatePlan``): one statement for the page, on the connections
/// kept for scans and under the request's statement limits like any collection read, and one more
/// for `$count=true`. Pages hold at most the page size; the next one is found by offset, carried in
/// `$skiptoken` (aggregated rows have no key to continue after).
struct AggregateRead {
    let service: ODataService
    let plan: AggregatePlan
    let query: BoundQuery
    let set: EntitySet
    let pageSize: Int

    func run() async throws -> AggregatedRows {
        var skip = query.skip ?? 0
        if let token = query.skipToken {
            let offsetKey = SortKey(expression: .null, descending: false, type: .int64)
            let values = try KeysetContinuation.values(fromToken: token, keys: [offsetKey])
            guard let offset = values.first?.integerValue, offset >= 0, offset <= Int.max / 2 else {
                throw ODataError.badRequest("The $skiptoken '\(token.prefix(100))' does not belong to this query; follow the @odata.nextLink as given.")
            }
            skip += Int(offset)
        }
        // One row past the page tells whether there is another.
        let pageLimit = min(query.top ?? Int.max, pageSize)
        let statement = plan.statement(skip: skip, limit: pageLimit == Int.max ? nil : pageLimit + 1)
        let types = plan.columns.map(\.type)
        var rows = try await service.database.scan { try await $0.query(statement, types: types) }.rows
        var next: (offset: Int, remainingTop: Int?)?
        if rows.count > pageLimit {
            rows.removeLast(rows.count - pageLimit)
            let remaining = query.top.map { $0 - rows.count }
            if remaining.map({ $0 > 0 }) ?? true { next = (skip + rows.count, remaining) }
        }
        var count: Int?
        if query.inlineCount == .allPages {
            let counting = plan.countStatement()
            let result = try await service.database.scan { try await $0.query(counting, types: [.int64]) }
            count = Int(result.rows.first?.first?.integerValue ?? 0)
        }
        return AggregatedRows(set: set, columns: plan.columns, rows: rows, written: query.apply?.written, count: count, next: next)
    }
}
