/// The ``DateStorageForm`` of every date column of a service that has one, by table and column as
/// the database names them. Empty on PostgreSQL, and for columns in Strata's own form.
package struct DateForms: Sendable, Hashable {
    private var forms: [String: [String: DateStorageForm]] = [:]

    package init() {}

    /// The form of a column; nil for Strata's own form and for columns that are not dates.
    package subscript(table table: String, column column: String) -> DateStorageForm? {
        get { forms[table]?[column] }
        set {
            forms[table, default: [:]][column] = newValue
            // Only tables with forms are kept, so that `isEmpty` costs nothing on every comparison.
            if forms[table]?.isEmpty == true { forms[table] = nil }
        }
    }

    /// Whether any column of the table has a form.
    package func hasForms(in table: String) -> Bool {
        forms[table] != nil
    }

    package var isEmpty: Bool { forms.isEmpty }

    /// Every column with a form, by table and column name.
    package var columns: [(table: String, column: String, form: DateStorageForm)] {
        forms.sorted { $0.key < $1.key }.flatMap { table, columns in
            columns.sorted { $0.key < $1.key }.map { (table, $0.key, $0.value) }
        }
    }
}
