import Foundation
import StrataCore
import Testing

private typealias M = QueryTestModel

private func bind(_ text: String, on type: EntityType = M.person) throws(ODataError) -> BoundExpression {
    try M.binder.bindFilter(try parseFilter(text), on: type)
}

/// The type of any expression, bound as an `$orderby` key (which, unlike `$filter`, need not be Boolean).
private func typeOf(_ text: String, on type: EntityType = M.maintenance) throws(ODataError) -> EDMPrimitiveType? {
    try M.binder.bindOrderBy(QueryOptionParser.orderBy(text), on: type)[0].expression.type
}

private func column(_ name: String, of type: EntityType) -> BoundExpression {
    let property = type.property(named: name)!
    return BoundExpression(type: property.type, node: .property(BoundPropertyPath(navigation: [], property: property)))
}

private func literal(_ value: ODataValue) -> BoundExpression { BoundExpression(type: value.type, node: .literal(value)) }

/// The operand type of the top binary node.
private func operandType(_ bound: BoundExpression) -> EDMPrimitiveType?? {
    if case .binary(_, _, _, let type) = bound.node { return .some(type) }
    return .none
}

@Suite struct FilterBinderTests {
    @Test func comparisonWithWiderLiteral() throws {
        #expect(try bind("personID eq 1L") == BoundExpression(
            type: .boolean, node: .binary(.eq, column("personID", of: M.person), literal(.int64(1)), operandType: .int64)))
    }

    @Test(arguments: [
        ("priority eq 5", EDMPrimitiveType.int32), ("priority eq priority", .byte), ("priority eq level", .int16),
        ("count eq 1L", .int64), ("maintenanceID eq 1.5M", .decimal), ("cost eq hours", .double),
        ("cost eq weight", .single), ("weight eq hours", .double), ("description eq null", .string),
        ("null ne description", .string), ("ticket eq guid'12345678-aaaa-bbbb-cccc-ddddeeeeffff'", .guid),
        ("photo ne X'00'", .binary), ("done eq true", .boolean), ("slot lt time'PT1H'", .time),
        ("scheduled ge datetimeoffset'2009-11-01T00:00:00Z'", .dateTimeOffset), ("description gt 'a'", .string),
        ("description le description", .string), ("maintenanceID ge 2", .int32), ("done and true", .boolean),
        ("done or null", .boolean),
    ])
    func comparisonOperandTypes(text: String, expected: EDMPrimitiveType) throws {
        let bound = try bind(text, on: M.maintenance)
        #expect(bound.type == .boolean)
        #expect(operandType(bound) == .some(expected))
    }

    @Test func nullComparedWithNull() throws {
        #expect(operandType(try bind("null eq null")) == .some(nil))
        #expect(try bind("createDate eq datetime'2009-11-01T00:00'").type == .boolean)
    }

    @Test(arguments: [
        ("priority add priority", EDMPrimitiveType.byte), ("priority add level", .int16), ("maintenanceID add 1L", .int64), ("cost mul 2", .decimal),
        ("hours sub cost", .double), ("maintenanceID div 2", .int32), ("maintenanceID mod 2", .int32),
        ("weight add 1", .single), ("-priority", .int16), ("-level", .sbyte), ("-cost", .decimal),
        ("maintenanceID add null", .int32), ("priority eq 1", .boolean), ("not done", .boolean), ("not null", .boolean),
    ])
    func expressionTypes(text: String, expected: EDMPrimitiveType) throws {
        #expect(try typeOf(text) == expected)
    }

    @Test func arithmeticOnNullsOnly() throws {
        let bound = try bind("null add null eq 1")
        guard case .binary(.eq, let lhs, _, let type) = bound.node else { Issue.record("not eq"); return }
        #expect(lhs.type == nil)
        #expect(type == .int32)
    }

    @Test(arguments: [
        (M.person, "firstName eq 5", "$filter: cannot compare Edm.String with Edm.Int32 in firstName eq 5"),
        (M.person, "firstname eq 'x'", "$filter: Property 'firstname' does not exist on type edmexampleModel.Person; did you mean 'firstName'?"),
        (M.person, "nothing eq 1", "$filter: Property 'nothing' does not exist on type edmexampleModel.Person"),
        (M.person, "createDate eq '2009-11-01'", "$filter: cannot compare Edm.DateTime with Edm.String in createDate eq '2009-11-01'; write Edm.DateTime values as datetime'2009-11-01T00:00:00'"),
        (M.person, "PersonCar/carID eq 1", "$filter: PersonCar is a collection of edmexampleModel.PersonCar; a $filter path can only go through navigation properties that lead to a single entity"),
        (M.person, "firstName", "$filter: the expression must be Edm.Boolean, but firstName is Edm.String"),
        (M.person, "null", "$filter: the expression must be Edm.Boolean, but null is an untyped null"),
        (M.person, "personID add 1", "$filter: the expression must be Edm.Boolean, but personID add 1 is Edm.Int32"),
        (M.person, "firstName and true", "$filter: and needs Edm.Boolean operands, not Edm.String and Edm.Boolean, in firstName and true"),
        (M.person, "true or 1", "$filter: or needs Edm.Boolean operands, not Edm.Boolean and Edm.Int32, in true or 1"),
        (M.person, "not firstName", "$filter: not needs an Edm.Boolean operand, not Edm.String, in not firstName"),
        (M.person, "-firstName eq 1", "$filter: - needs a numeric operand, not Edm.String, in -firstName"),
        (M.person, "firstName add 1 eq 2", "$filter: add needs numeric operands, not Edm.String and Edm.Int32, in firstName add 1"),
        (M.person, "createDate sub createDate eq 1", "$filter: sub needs numeric operands, not Edm.DateTime and Edm.DateTime, in createDate sub createDate"),
        (M.person, "'a' mul null eq 1", "$filter: mul needs numeric operands, not Edm.String and null, in 'a' mul null"),
        (M.maintenance, "done gt false", "$filter: gt cannot order Edm.Boolean values, in done gt false; use eq or ne"),
        (M.maintenance, "ticket lt ticket", "$filter: lt cannot order Edm.Guid values, in ticket lt ticket; use eq or ne"),
        (M.maintenance, "photo ge null", "$filter: ge cannot order Edm.Binary values, in photo ge null; use eq or ne"),
        (M.maintenance, "scheduled eq datetime'2009-11-01T00:00'", "$filter: cannot compare Edm.DateTimeOffset with Edm.DateTime in scheduled eq datetime'2009-11-01T00:00:00'"),
        (M.maintenance, "ticket eq '1'", "$filter: cannot compare Edm.Guid with Edm.String in ticket eq '1'; write Edm.Guid values as guid'12345678-aaaa-bbbb-cccc-ddddeeeeffff'"),
        (M.personCar, "Car eq null", "$filter: Car is a navigation property, not a value; name one of its properties, as in Car/carID"),
        (M.personCar, "Car/make/x eq 1", "$filter: Car/make is a property of type Edm.String and has no property 'x'"),
        (M.personCar, "Car/nothing eq 1", "$filter: Property 'nothing' does not exist on type edmexampleModel.Car"),
        (M.personCar, "Car/PersonCar/carID eq 1", "$filter: Car/PersonCar is a collection of edmexampleModel.PersonCar; a $filter path can only go through navigation properties that lead to a single entity"),
    ])
    func refusals(type: EntityType, text: String, message: String) {
        #expect(errorMessage { () throws(ODataError) in try bind(text, on: type) } == message)
    }

    @Test func pathThroughSingleNavigations() throws {
        let bound = try bind("PersonCar/Car/make eq 'Ford'", on: M.personCarMaintenance)
        guard case .binary(.eq, let lhs, _, .string?) = bound.node, case .property(let path) = lhs.node else {
            Issue.record("unexpected shape \(bound)")
            return
        }
        #expect(path.navigationNames == ["PersonCar", "Car"])
        #expect(path.property == M.car.property(named: "make"))
        #expect(path.navigation[0].sourceTypeName == "edmexampleModel.PersonCarMaintenance")
        #expect(path.navigation[0].targetSet.name == "PersonCar")
        #expect(path.navigation[0].property.joinColumns == [.init(local: "personCarID", remote: "personCarID")])
        #expect(path.navigation[1].sourceTypeName == "edmexampleModel.PersonCar")
        #expect(path.navigation[1].targetType == M.car)
        #expect(path.navigation[1].property.joinColumns == [.init(local: "carID", remote: "carID")])
        let optional = try bind("Maintenance/cost gt 1", on: M.personCarMaintenance)
        #expect(optional.propertyPaths.first?.navigation.first?.property.multiplicity == .zeroOrOne)
    }

    @Test(arguments: [
        ("substringof('a',description)", EDMPrimitiveType.boolean), ("substringof(null,description)", .boolean),
        ("startswith(description,'a')", .boolean), ("endswith(description,'a')", .boolean),
        ("length(description)", .int32), ("indexof(description,'a')", .int32),
        ("replace(description,'a','b')", .string), ("substring(description,1)", .string),
        ("substring(description,1,priority)", .string), ("substring(description,1L)", .string),
        ("tolower(description)", .string), ("toupper(description)", .string), ("trim(description)", .string),
        ("concat(description,'x')", .string), ("year(scheduled)", .int32), ("month(scheduled)", .int32),
        ("day(scheduled)", .int32), ("hour(slot)", .int32), ("minute(slot)", .int32), ("second(scheduled)", .int32),
        ("round(cost)", .decimal), ("round(hours)", .double), ("floor(weight)", .double), ("ceiling(maintenanceID)", .decimal),
        ("floor(null)", .decimal), ("ceiling(hours)", .double),
    ])
    func functionResultTypes(text: String, expected: EDMPrimitiveType) throws {
        #expect(try typeOf(text) == expected)
    }

    @Test func dateFunctionsOnDateTime() throws {
        for name in ["year", "month", "day", "hour", "minute", "second"] {
            #expect(try typeOf("\(name)(createDate)", on: M.person) == .int32)
        }
    }

    /// Every V2 function refuses a Guid wherever it takes a value (V4's: QueryV4Tests).
    @Test(arguments: QueryFunction.functions(in: .v2))
    func functionArgumentTypes(function: QueryFunction) {
        let arguments = Array(repeating: "ticket", count: function.arity.lowerBound).joined(separator: ",")
        let text = "\(function.name)(\(arguments))"
        let types = Array(repeating: "Edm.Guid", count: function.arity.lowerBound).joined(separator: ", ")
        #expect(errorMessage { () throws(ODataError) in try typeOf(text) }
            == "$orderby: \(function.name) cannot take (\(types)); it is \(function.signatures.joined(separator: " or ")), in \(text)")
    }

    @Test func functionRefusalMessages() {
        #expect(errorMessage { () throws(ODataError) in try typeOf("substring(description,'a')") }
            == "$orderby: substring cannot take (Edm.String, Edm.String); it is substring(Edm.String, Edm.Int32) -> Edm.String or substring(Edm.String, Edm.Int32, Edm.Int32) -> Edm.String, in substring(description,'a')")
        #expect(errorMessage { () throws(ODataError) in try typeOf("year(slot)") }
            == "$orderby: year cannot take (Edm.Time); it is year(Edm.DateTime) -> Edm.Int32 or year(Edm.DateTimeOffset) -> Edm.Int32, in year(slot)")
        #expect(errorMessage { () throws(ODataError) in try M.binder.bindFilter(.call(.length, []), on: M.person) }
            == "$filter: length takes 1 argument, not 0, in length()")
    }

    @Test func isOf() throws {
        #expect(try bind("isof('edmexampleModel.Person')") == literal(.boolean(true)))
        #expect(try bind("isof('edmexampleModel.Car')") == literal(.boolean(false)))
        #expect(try bind("isof('Edm.String')") == literal(.boolean(false)))
        #expect(try bind("isof(personID,'Edm.String')") == literal(.boolean(false)))
        #expect(try bind("isof(null,'Edm.String')") == literal(.boolean(false)))
        #expect(try bind("isof(firstName,Edm.String)") == BoundExpression(
            type: .boolean, node: .binary(.ne, column("firstName", of: M.person), literal(.null), operandType: .string)))
        #expect(errorMessage { () throws(ODataError) in try bind("isof('Foo.Bar')") }
            == "$filter: unknown type 'Foo.Bar' in isof('Foo.Bar'); isof takes an Edm type such as 'Edm.Int32' or an entity type such as 'edmexampleModel.Person'")
    }

    @Test func cast() throws {
        let widened = try bind("cast(personID,'Edm.Int64') eq 1L")
        #expect(widened == BoundExpression(type: .boolean, node: .binary(
            .eq, BoundExpression(type: .int64, node: .cast(column("personID", of: M.person))), literal(.int64(1)), operandType: .int64)))
        let identity = try bind("cast(personID,Edm.Int32) eq 1")
        #expect(identity == BoundExpression(type: .boolean, node: .binary(.eq, column("personID", of: M.person), literal(.int32(1)), operandType: .int32)))
        #expect(try typeOf("cast(null,'Edm.Int16')") == .int16)
        #expect(try typeOf("cast(hours,'Edm.Decimal')") == .decimal)
        #expect(errorMessage { () throws(ODataError) in try bind("cast(firstName,'Edm.Int32') eq 1") }
            == "$filter: cannot cast Edm.String to Edm.Int32 in cast(firstName,'Edm.Int32'); cast converts between numeric types")
        #expect(errorMessage { () throws(ODataError) in try bind("cast('edmexampleModel.Person') eq null") }
            == "$filter: cast('edmexampleModel.Person') casts the entity itself, which $filter cannot use; cast a property, as in cast(personID,'Edm.Int64')")
        #expect(errorMessage { () throws(ODataError) in try bind("cast(personID,'edmexampleModel.Car') eq null") }
            == "$filter: cast(personID,'edmexampleModel.Car') casts to an entity type; $filter can cast only to primitive types such as 'Edm.Int64'")
    }

    @Test func orderBy() throws {
        let items = try M.binder.bindOrderBy(QueryOptionParser.orderBy("PersonCar/Car/make desc,mileage"), on: M.personCarMaintenance)
        #expect(items.map(\.direction) == [.descending, .ascending])
        #expect(items.map(\.expression.type) == [.string, .int64])
        #expect(errorMessage { () throws(ODataError) in try typeOf("null") } == "$orderby: null is an untyped null, which cannot sort anything")
        #expect(errorMessage { () throws(ODataError) in try typeOf("PersonCar", on: M.personCarMaintenance) }
            == "$orderby: PersonCar is a navigation property, not a value; name one of its properties, as in PersonCar/personCarID")
        #expect(errorMessage { () throws(ODataError) in try typeOf("PersonCar/carID", on: M.person) }
            == "$orderby: PersonCar is a collection of edmexampleModel.PersonCar; a $orderby path can only go through navigation properties that lead to a single entity")
    }

    @Test func wholeOptionsAndJoins() throws {
        let options = try QueryOptions(parsing: "$filter=PersonCar/Car/make eq 'Ford' and PersonCar/personID eq 1 and Maintenance/cost gt 1"
            + "&$orderby=PersonCar/Car/model,mileage desc&$top=3&$skip=1&$inlinecount=allpages&$format=json&x=y")
        let bound = try M.binder.bind(options, to: M.personCarMaintenance)
        #expect(bound.navigationJoins.map { $0.map(\.property.name) } == [["PersonCar"], ["PersonCar", "Car"], ["Maintenance"]])
        #expect(bound.top == 3 && bound.skip == 1 && bound.inlineCount == .allPages && bound.format == "json")
        #expect(bound.customOptions == [CustomQueryOption(name: "x", value: "y")])
        #expect(bound.projection == .all(of: M.personCarMaintenance))
        #expect(bound.orderBy.count == 2)
        #expect(bound.filter?.propertyPaths.map(\.property.name) == ["make", "personID", "cost"])
    }
}
