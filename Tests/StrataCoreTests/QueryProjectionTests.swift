import StrataCore
import Testing

private typealias M = QueryTestModel

private func project(_ query: String, on type: EntityType = M.person) throws(ODataError) -> BoundProjection {
    try M.binder.bind(QueryOptions(parsing: query), to: type).projection
}

private func names(_ projection: BoundProjection) -> [String] {
    projection.properties.map(\.name) + projection.navigationLinks.map { "→" + $0.name }
}

@Suite struct QueryProjectionTests {
    @Test func nothingAsked() throws {
        let projection = try project("")
        #expect(projection == .all(of: M.person))
        #expect(names(projection) == ["personID", "firstName", "lastName", "ssn", "createDate", "→PersonCar"])
    }

    @Test func seed000Expand() throws {
        let projection = try project("$expand=PersonCar,PersonCar/Car")
        #expect(projection.expansions.map(\.property.name) == ["PersonCar"])
        let personCar = projection.expansions[0]
        #expect(personCar.targetSet.name == "PersonCar")
        #expect(personCar.property.multiplicity == .many)
        #expect(personCar.projection.selectsAll)
        #expect(personCar.projection.expansions.map(\.property.name) == ["Car"])
        let car = personCar.projection.expansions[0]
        #expect(car.projection == .all(of: M.car))
        #expect(car.property.multiplicity == .one)
        #expect(try project("$expand=PersonCar/Car") == projection)
    }

    @Test func multiLevelExpand() throws {
        let projection = try project("$expand=PersonCar/PersonCarMaintenance/Maintenance,PersonCar/Car")
        let personCar = projection.expansions[0].projection
        #expect(personCar.expansions.map(\.property.name) == ["PersonCarMaintenance", "Car"])
        #expect(personCar.expansions[0].projection.expansions.map(\.property.name) == ["Maintenance"])
    }

    @Test func selectProperties() throws {
        let projection = try project("$select=lastName,firstName,lastName")
        #expect(names(projection) == ["firstName", "lastName"])
        #expect(!projection.selectsAll)
        #expect(try project("$select=*") == .all(of: M.person))
        #expect(try project("$select=firstName,*") == .all(of: M.person))
    }

    @Test func selectNavigationWithoutExpand() throws {
        let projection = try project("$select=PersonCar")
        #expect(names(projection) == ["→PersonCar"])
        #expect(projection.expansions.isEmpty)
    }

    @Test func selectIntoExpanded() throws {
        let wildcard = try project("$select=firstName,PersonCar/*&$expand=PersonCar")
        #expect(names(wildcard) == ["firstName", "→PersonCar"])
        #expect(wildcard.expansions[0].projection == .all(of: M.personCar))

        let whole = try project("$select=PersonCar&$expand=PersonCar")
        #expect(whole.expansions[0].projection == .all(of: M.personCar))

        let deep = try project("$select=ssn,PersonCar/Car/make,PersonCar/carID&$expand=PersonCar/Car")
        #expect(names(deep) == ["ssn", "→PersonCar"])
        let personCar = deep.expansions[0].projection
        #expect(names(personCar) == ["carID", "→Car"])
        #expect(names(personCar.expansions[0].projection) == ["make"])

        let navigationOnly = try project("$select=PersonCar/Car&$expand=PersonCar/Car")
        #expect(names(navigationOnly.expansions[0].projection) == ["→Car"])
        #expect(navigationOnly.expansions[0].projection.expansions[0].projection == .all(of: M.car))
    }

    /// As in WCF Data Services, an expanded navigation that $select leaves out is not returned.
    @Test func expandedButNotSelected() throws {
        let projection = try project("$select=firstName&$expand=PersonCar")
        #expect(names(projection) == ["firstName"])
        #expect(projection.expansions.isEmpty)
    }

    @Test(arguments: [
        ("$expand=firstName", "$expand: 'firstName' is a property of edmexampleModel.Person, not a navigation property; $expand takes navigation properties such as PersonCar"),
        ("$expand=Cars", "$expand: Property 'Cars' does not exist on type edmexampleModel.Person"),
        ("$expand=PersonCar/car", "$expand: Property 'car' does not exist on type edmexampleModel.PersonCar; did you mean 'Car'?"),
        ("$select=firstname", "$select: Property 'firstname' does not exist on type edmexampleModel.Person; did you mean 'firstName'?"),
        ("$select=PersonCar/Car", "$select: PersonCar/Car goes through PersonCar, which is not expanded; add it to $expand"),
        ("$select=PersonCar/Car/make&$expand=PersonCar", "$select: PersonCar/Car/make goes through PersonCar/Car, which is not expanded; add it to $expand"),
        ("$select=firstName/x", "$select: firstName is a property, not a navigation property, so firstName/x cannot go further"),
        ("$select=firstName/*", "$select: firstName is a property, not a navigation property, so firstName/* cannot go further"),
    ])
    func refusals(query: String, message: String) {
        #expect(errorMessage { () throws(ODataError) in try project(query) } == message)
    }

    @Test func programmaticEmptyPaths() {
        #expect(errorMessage { () throws(ODataError) in try M.binder.bindProjection(select: [], expand: [PropertyPath([])], on: M.person) }
            == "$expand: an empty path cannot be expanded")
        #expect(errorMessage { () throws(ODataError) in try M.binder.bindProjection(select: [SelectItem(PropertyPath([]))], expand: [], on: M.person) }
            == "$select: an empty item selects nothing; name a property or write *")
    }
}
