import Foundation
import StrataCore
import StrataSQL
import Synchronization
import StrataOData
import StrataStorage

/// Refuses `$sql` queries that combine tables row by row (a cross join: `JOIN … ON 1=1`, or tables
/// no equality joins) into more combinations than the server allows, before they run.
///
/// The query's tables fall into groups that equalities join (``SQLCheckedStatement/joinGroups``);
/// groups multiply. Each group counts as large as its largest table, and each table is counted up
/// to one row past the limit, so the check costs at most that many rows per table, once a minute
/// (``TableSizes``). Joins on equal columns are not limited here: they are what relational queries
/// are made of, and the statement timeout bounds the ones that still run long.
struct CrossJoinGuard: Sendable {
    let limit: Int

    func check(_ checked: SQLCheckedStatement, service: ODataService, sizes: TableSizes) async throws {
        let groups = checked.joinGroups
        guard groups.count > 1 else { return }
        var product = 1
        var described: [String] = []
        for group in groups {
            var largest = 0
            for position in group {
                largest = max(largest, try await sizes.rows(of: checked.tables[position].table, in: service, cap: limit + 1))
            }
            product = product.multipliedReportingOverflow(by: largest).overflow ? Int.max : product * largest
            let names = group.map { position in
                let table = checked.tables[position]
                return table.clientName == table.table ? table.table : "\(table.table) \(table.clientName)"
            }.joined(separator: ", ")
            described.append(largest > limit ? "\(names) (more than \(limit) rows)" : "\(names) (\(largest) rows)")
        }
        guard product > limit else { return }
        throw ODataError.badRequest("""
            The query combines every row of \(described.joined(separator: " with every row of ")): more than \(limit) \
            combinations, which the server does not run. Join the tables on matching columns (JOIN … ON a.id = b.aId, or \
            an equality in WHERE), or narrow them first.
            """)
    }
}

extension TableSizes {
    func rows(of table: String, in service: ODataService, cap: Int) async throws -> Int {
        let now = ContinuousClock.now
        if let known = counts.withLock({ $0[table] }), known.cap >= cap || known.rows < known.cap,
           now - known.at < Self.maximumAge {
            return min(known.rows, cap)
        }
        let dialect = service.dialect
        // The table name comes from the catalog, the cap from the server's configuration.
        let statement = SQLStatement("SELECT count(*) FROM (SELECT 1 FROM \(service.storage.table(table)) LIMIT \(cap)) AS \"c\"", dialect: dialect)
        let result = try await service.database.scan { try await $0.query(statement, types: [.int64]) }
        let rows = Int(result.rows.first?.first?.integerValue ?? 0)
        counts.withLock { $0[table] = (rows, cap, now) }
        return rows
    }
}
