import StrataCore
import StrataOData
import StrataSQL
import StrataStorage

/// What the data-table endpoints keep per loaded service: the catalog `$sql` checks against, the
/// table sizes of its cross-join check, and the idempotent change sets being applied now.
final class DataTableState: Sendable {
    /// The tables and columns `$sql` may name: the model's, under their OData and database names.
    let sqlCatalog: SQLCatalog
    /// Row counts of its tables, for the cross-join check of `$sql`.
    let tableSizes = TableSizes()
    /// Idempotent change sets being applied now (a reload starts with none: the receipts' primary
    /// key still stops a second application).
    let changeSetClaims = ChangeSetClaims()

    init(_ service: ODataService) {
        let names = service.storage.names
        sqlCatalog = SQLCatalog(model: service.model, storedTable: { names.table($0.name) },
                                storedColumn: { names.column($1.name, of: $0.name) })
    }
}

extension ODataService {
    /// The data-table endpoints' state for this service, made on first use.
    var dataTables: DataTableState {
        features.value(DataTableState.self) { DataTableState(self) }
    }
}
