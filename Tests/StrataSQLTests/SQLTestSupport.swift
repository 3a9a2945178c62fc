import Foundation
import StrataCore
import StrataSQL
import Testing

/// A catalog shaped like the car dealer demo.
let carDealerCatalog = SQLCatalog(tables: [
    .init(name: "Person", columns: [
        .init(name: "personID", type: .int32), .init(name: "firstName", type: .string), .init(name: "lastName", type: .string),
        .init(name: "ssn", type: .string), .init(name: "createDate", type: .dateTime),
    ]),
    .init(name: "Car", columns: [
        .init(name: "carID", type: .int32), .init(name: "make", type: .string), .init(name: "model", type: .string),
        .init(name: "manufactureDate", type: .dateTime), .init(name: "createStamp", type: .dateTime),
    ]),
    .init(name: "PersonCar", columns: [
        .init(name: "personCarID", type: .int32), .init(name: "personID", type: .int32), .init(name: "carID", type: .int32),
        .init(name: "createStamp", type: .dateTime),
    ]),
])

/// Checks a query against the car dealer catalog.
func checked(_ sql: String, _ parameters: [String: ODataValue] = [:], canRead: (String) -> Bool = { _ in true }) throws(ODataError) -> SQLCheckedStatement {
    try ClientSQL.check(sql, catalog: carDealerCatalog, parameters: parameters, canRead: canRead)
}

/// Checks and emits a query for one dialect.
func emitted(_ sql: String, _ dialect: SQLDialect, _ parameters: [String: ODataValue] = [:]) throws(ODataError) -> SQLStatement {
    try checked(sql, parameters).emit(for: dialect)
}

/// The error a query is refused with; records an issue when it is accepted.
func refusal(_ sql: String, _ parameters: [String: ODataValue] = [:], limits: SQLLimits = .default,
             sourceLocation: SourceLocation = #_sourceLocation) -> ODataError? {
    do {
        let statement = try ClientSQL.check(sql, catalog: carDealerCatalog, parameters: parameters, limits: limits)
        Issue.record("accepted: \(sql) → \(statement.columns.map(\.name))", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}
