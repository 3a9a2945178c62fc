import Logging
import StrataSQL

extension DateForms {
    /// The forms the catalog reader found for a service's date columns. A column whose values come
    /// in several forms is compared through SQLite's date functions, which cannot use its index:
    /// that is said once, when the service loads, so that its owner can make the values agree.
    package init(_ tables: [CatalogTable], service: String, logger: Logger) {
        self.init()
        for table in tables {
            for column in table.columns {
                guard let form = column.dateForm else { continue }
                self[table: table.name, column: column.name] = form
                let metadata: Logger.Metadata = ["service": .string(service), "table": .string(table.name), "column": .string(column.name)]
                if case .mixed = form {
                    logger.notice("Column holds dates in several forms: it is compared and sorted through SQLite's date functions, without its index; store its values in one form to use the index", metadata: metadata)
                } else {
                    logger.debug("Column holds dates as \(form.description)", metadata: metadata)
                }
            }
        }
    }
}
