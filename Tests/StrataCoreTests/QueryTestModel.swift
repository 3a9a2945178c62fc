import StrataCore
import Testing

/// A hand-built model shaped like the seed's car dealer:
/// Person 1—* PersonCar *—1 Car, PersonCar 1—* PersonCarMaintenance *—1 Maintenance.
/// Maintenance carries one property of every other EDM type so that type rules can be tested on columns.
enum QueryTestModel {
    static func nav(_ name: String, to set: String, _ multiplicity: Multiplicity, _ local: String, _ remote: String) -> NavigationProperty {
        NavigationProperty(name: name, relationship: "FK_\(name)", fromRole: "from", toRole: name, targetSet: set,
                           multiplicity: multiplicity, joinColumns: [.init(local: local, remote: remote)])
    }

    static let person = EntityType(
        name: "Person", namespace: "edmexampleModel",
        properties: [
            EntityProperty(name: "personID", type: .int32, isNullable: false, isServerGenerated: true),
            EntityProperty(name: "firstName", type: .string),
            EntityProperty(name: "lastName", type: .string),
            EntityProperty(name: "ssn", type: .string),
            EntityProperty(name: "createDate", type: .dateTime),
        ],
        keyNames: ["personID"],
        navigationProperties: [nav("PersonCar", to: "PersonCar", .many, "personID", "personID")])

    static let car = EntityType(
        name: "Car", namespace: "edmexampleModel",
        properties: [
            EntityProperty(name: "carID", type: .int32, isNullable: false),
            EntityProperty(name: "make", type: .string),
            EntityProperty(name: "model", type: .string),
            EntityProperty(name: "manufactureDate", type: .dateTime),
            EntityProperty(name: "createStamp", type: .dateTime),
        ],
        keyNames: ["carID"],
        navigationProperties: [nav("PersonCar", to: "PersonCar", .many, "carID", "carID")])

    static let personCar = EntityType(
        name: "PersonCar", namespace: "edmexampleModel",
        properties: [
            EntityProperty(name: "personCarID", type: .int32, isNullable: false),
            EntityProperty(name: "personID", type: .int32, isNullable: false),
            EntityProperty(name: "carID", type: .int32, isNullable: false),
            EntityProperty(name: "createStamp", type: .dateTime),
        ],
        keyNames: ["personCarID"],
        navigationProperties: [
            nav("Person", to: "Person", .one, "personID", "personID"),
            nav("Car", to: "Car", .one, "carID", "carID"),
            nav("PersonCarMaintenance", to: "PersonCarMaintenance", .many, "personCarID", "personCarID"),
        ])

    static let personCarMaintenance = EntityType(
        name: "PersonCarMaintenance", namespace: "edmexampleModel",
        properties: [
            EntityProperty(name: "personCarMaintenanceID", type: .int32, isNullable: false),
            EntityProperty(name: "personCarID", type: .int32, isNullable: false),
            EntityProperty(name: "maintenanceID", type: .int32),
            EntityProperty(name: "mileage", type: .int64),
        ],
        keyNames: ["personCarMaintenanceID"],
        navigationProperties: [
            nav("PersonCar", to: "PersonCar", .one, "personCarID", "personCarID"),
            nav("Maintenance", to: "Maintenance", .zeroOrOne, "maintenanceID", "maintenanceID"),
        ])

    static let maintenance = EntityType(
        name: "Maintenance", namespace: "edmexampleModel",
        properties: [
            EntityProperty(name: "maintenanceID", type: .int32, isNullable: false),
            EntityProperty(name: "description", type: .string),
            EntityProperty(name: "cost", type: .decimal),
            EntityProperty(name: "hours", type: .double),
            EntityProperty(name: "weight", type: .single),
            EntityProperty(name: "priority", type: .byte),
            EntityProperty(name: "level", type: .sbyte),
            EntityProperty(name: "count", type: .int16),
            EntityProperty(name: "done", type: .boolean),
            EntityProperty(name: "ticket", type: .guid),
            EntityProperty(name: "slot", type: .time),
            EntityProperty(name: "scheduled", type: .dateTimeOffset),
            EntityProperty(name: "photo", type: .binary),
        ],
        keyNames: ["maintenanceID"],
        navigationProperties: [nav("PersonCarMaintenance", to: "PersonCarMaintenance", .many, "maintenanceID", "maintenanceID")])

    static let model = ServiceModel(
        serviceName: "cardealer", namespace: "edmexampleModel", containerName: "edmexampleEntities",
        entityTypes: [person, car, personCar, personCarMaintenance, maintenance],
        entitySets: [person, car, personCar, personCarMaintenance, maintenance].map {
            EntitySet(name: $0.name, entityTypeName: $0.name)
        },
        associations: [])

    static let binder = QueryBinder(model: model)
}

/// The message of the `ODataError` a call throws, nil when it succeeds; any other error fails the test.
func errorMessage<T>(_ body: () throws(ODataError) -> T) -> String? {
    do {
        _ = try body()
        return nil
    } catch {
        #expect(error.status == 400, "expected a 400, got \(error)")
        return error.message
    }
}

/// Parses a `$filter` with default limits.
func parseFilter(_ text: String) throws(ODataError) -> QueryExpression {
    try QueryOptionParser.filter(text)
}
