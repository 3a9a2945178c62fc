import StrataCore
import StrataSQL
import StrataStorage

/// The SQL of a service's date columns in the form their values are stored in (``DateForms``):
/// how a statement reads a column, finds a row by a date key, and writes a date. For a column in
/// Strata's own form, and on PostgreSQL, each is the plain column and value.
///
/// `table` and `column` are the model's names (an entity set, and a property of its type, whose
/// name is the set's); the forms and the statements use the database's, through ``names``.
extension ServiceStorage {
    /// The form of a column; nil for Strata's own form, other types and PostgreSQL.
    func dateForm(table: String, column: String) -> DateStorageForm? {
        guard database.dialect == .sqlite, !dateForms.isEmpty else { return nil }
        return dateForms[table: names.table(table), column: names.column(column, of: table)]
    }

    /// Whether any column of the entity set `table` has a form.
    func hasDateForms(in table: String) -> Bool {
        !dateForms.isEmpty && dateForms.hasForms(in: names.table(table))
    }

    /// A column as a SELECT reads it (``DateStorageForm/read(_:)``).
    func selected(alias: String?, table: String, column: String) -> SQLTerm {
        let term = SQLTerm.column(alias: alias, name: names.column(column, of: table))
        return dateForm(table: table, column: column)?.read(term) ?? term
    }

    /// `column = value`, for keys and join values: a date compared the way its column stores it.
    func equality(alias: String?, table: String, column: String, value: ODataValue) -> SQLTerm {
        let term = SQLTerm.column(alias: alias, name: names.column(column, of: table))
        guard let form = dateForm(table: table, column: column), let instant = value.instant else { return .equals(term, .value(value)) }
        return form.condition(term, .equal, instant)
    }

    /// A value as its column stores it, for an INSERT or UPDATE; a 400 when the column's form
    /// cannot hold it (``DateStorageForm/stored(_:column:table:)``).
    /// On PostgreSQL the timestamp is bound as it is; a `date` column's form only refuses a time.
    func stored(_ value: ODataValue, table: String, column: String) throws(ODataError) -> ODataValue {
        guard !dateForms.isEmpty, let form = dateForms[table: names.table(table), column: names.column(column, of: table)] else { return value }
        let stored = try form.stored(value, column: column, table: table)
        return database.dialect == .sqlite ? stored : value
    }
}

extension ODataValue {
    /// The instant a date-time value names (in UTC); nil for other values.
    var instant: ODataDateTime? {
        switch self {
        case .dateTime(let d): return d
        case .dateTimeOffset(let d): return d.utc
        default: return nil
        }
    }
}
