import Foundation
import StrataCore

/// Maps declared column types to EDM types, per dialect.
enum TypeMapping {
    /// A declared type split into its name and numeric arguments: `VARCHAR(50)` → ("VARCHAR", [50]).
    static func split(_ declared: String) -> (name: String, arguments: [Int]) {
        let upper = declared.uppercased().trimmingCharacters(in: .whitespaces)
        guard let open = upper.firstIndex(of: "("), let close = upper.lastIndex(of: ")"), open < close else {
            return (upper, [])
        }
        let name = upper[..<open].trimmingCharacters(in: .whitespaces)
        let arguments = upper[upper.index(after: open)..<close].split(separator: ",").compactMap {
            Int($0.trimmingCharacters(in: .whitespaces))
        }
        return (name, arguments)
    }

    /// SQLite: exact names first (so `INTEGER` is Int32 as in the CarDealer sample's JSON, `BIGINT` Int64),
    /// then SQLite's affinity rules for anything else.
    static func sqlite(_ declared: String) -> (type: EDMPrimitiveType, maxLength: Int?, fixed: Bool, precision: Int?, scale: Int?) {
        let (name, args) = split(declared)
        switch name {
        case "INT", "INTEGER", "MEDIUMINT", "INT4": return (.int32, nil, false, nil, nil)
        case "BIGINT", "INT8", "UNSIGNED BIG INT": return (.int64, nil, false, nil, nil)
        case "SMALLINT", "INT2": return (.int16, nil, false, nil, nil)
        case "TINYINT": return (.byte, nil, false, nil, nil)
        case "BOOLEAN", "BOOL", "BIT": return (.boolean, nil, false, nil, nil)
        case "DATETIME", "TIMESTAMP", "DATE", "DATETIME2", "SMALLDATETIME": return (.dateTime, nil, false, nil, nil)
        case "DATETIMEOFFSET", "TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE": return (.dateTimeOffset, nil, false, nil, nil)
        case "TIME": return (.time, nil, false, nil, nil)
        case "DECIMAL", "NUMERIC", "MONEY", "SMALLMONEY":
            return (.decimal, nil, false, args.first, args.count > 1 ? args[1] : nil)
        case "REAL", "DOUBLE", "DOUBLE PRECISION", "FLOAT": return (.double, nil, false, nil, nil)
        case "UUID", "GUID", "UNIQUEIDENTIFIER": return (.guid, nil, false, nil, nil)
        case "BLOB", "BINARY", "VARBINARY", "BYTEA", "IMAGE": return (.binary, args.first, name == "BINARY", nil, nil)
        case "CHAR", "NCHAR", "CHARACTER": return (.string, args.first, true, nil, nil)
        case "VARCHAR", "NVARCHAR", "VARYING CHARACTER", "NATIVE CHARACTER", "TEXT", "CLOB", "NTEXT", "STRING", "":
            return (.string, args.first, false, nil, nil)
        default:
            break
        }
        // SQLite's affinity rules (https://sqlite.org/datatype3.html, 3.1).
        if name.contains("INT") { return (.int64, nil, false, nil, nil) }
        if name.contains("CHAR") || name.contains("CLOB") || name.contains("TEXT") { return (.string, args.first, false, nil, nil) }
        if name.contains("BLOB") { return (.binary, nil, false, nil, nil) }
        if name.contains("REAL") || name.contains("FLOA") || name.contains("DOUB") { return (.double, nil, false, nil, nil) }
        return (.decimal, nil, false, args.first, args.count > 1 ? args[1] : nil)
    }

    /// PostgreSQL, from `pg_type.typname` and `pg_attribute.atttypmod`; nil for types Strata does not expose.
    static func postgres(typeName: String, typmod: Int32) -> (type: EDMPrimitiveType, maxLength: Int?, fixed: Bool, precision: Int?, scale: Int?)? {
        let modifier = typmod >= 4 ? Int(typmod - 4) : nil
        switch typeName {
        case "int2": return (.int16, nil, false, nil, nil)
        case "int4": return (.int32, nil, false, nil, nil)
        case "int8": return (.int64, nil, false, nil, nil)
        case "numeric":
            guard let modifier else { return (.decimal, nil, false, nil, nil) }
            return (.decimal, nil, false, (modifier >> 16) & 0xFFFF, modifier & 0xFFFF)
        case "float4": return (.single, nil, false, nil, nil)
        case "float8": return (.double, nil, false, nil, nil)
        case "bool": return (.boolean, nil, false, nil, nil)
        case "varchar": return (.string, modifier, false, nil, nil)
        case "bpchar": return (.string, modifier, true, nil, nil)
        case "text", "name", "citext": return (.string, nil, false, nil, nil)
        case "timestamp", "date": return (.dateTime, nil, false, nil, nil)
        case "timestamptz": return (.dateTimeOffset, nil, false, nil, nil)
        case "time": return (.time, nil, false, nil, nil)
        case "uuid": return (.guid, nil, false, nil, nil)
        case "bytea": return (.binary, nil, false, nil, nil)
        default: return nil
        }
    }
}
