import Foundation
@testable import StrataClient
import Testing

/// CSDL 4.0 `$metadata` read into the client's model: a hand-written document of a service that is
/// not Strata, and the shape Strata writes.
@Suite("V4: CSDL 4.0 metadata")
struct V4MetadataReaderTests {
    @Test("A TripPin-like document: aliases, enumerations as strings, V4 types mapped, complex and stream properties left out, inheritance")
    func tripPinTypes() throws {
        let model = try MetadataReader.read(Data(TripPinMetadata.xml.utf8))
        #expect(model.namespace == "Trippin")
        #expect(model.containerName == "Container")
        #expect(model.entitySets.map(\.name) == ["People", "AllTrips"])
        #expect(model.entitySets.map(\.entityTypeName) == ["Person", "Trip"])

        let person = try #require(model.entityTypes.first { $0.name == "Person" })
        #expect(person.qualifiedName == "Trippin.Person")
        #expect(person.keyNames == ["UserName"])
        #expect(person.properties.map(\.name) == ["UserName", "FirstName", "Gender", "Age"])
        #expect(person.property(named: "Gender")?.type == .string)
        #expect(person.property(named: "Age")?.type == .int64)
        #expect(person.property(named: "FirstName")?.maxLength == 40)
        #expect(person.property(named: "FirstName")?.isNullable == false)

        let trip = try #require(model.entityTypes.first { $0.name == "Trip" })
        #expect(trip.properties.map(\.type) == [.int32, .string, .guid, .single, .dateTimeOffset, .dateTime, .time, .time])
        #expect(trip.property(named: "TripId")?.isServerGenerated == true)
        #expect(trip.property(named: "UserName")?.isServerGenerated == false)

        let employee = try #require(model.entityTypes.first { $0.name == "Employee" })
        #expect(employee.keyNames == ["UserName"])
        #expect(employee.properties.map(\.name) == ["UserName", "FirstName", "Gender", "Age", "Cost"])
        #expect(employee.property(named: "Cost")?.precision == 12 && employee.property(named: "Cost")?.scale == 2)
        #expect(employee.navigationProperties.map(\.name) == ["Friends", "Trips"])
    }

    @Test("TripPin's navigation: Collection(…) is to-many, Nullable=false is one, bindings give target sets, constraints give join columns both ways")
    func tripPinNavigation() throws {
        let model = try MetadataReader.read(Data(TripPinMetadata.xml.utf8))
        let person = try #require(model.entityTypes.first { $0.name == "Person" })
        let trip = try #require(model.entityTypes.first { $0.name == "Trip" })

        let trips = try #require(person.navigationProperty(named: "Trips"))
        #expect(trips.multiplicity == .many)
        #expect(trips.targetSet == "AllTrips", "from the container-qualified binding target")
        #expect(trips.joinColumns == [.init(local: "UserName", remote: "UserName")])

        let traveller = try #require(trip.navigationProperty(named: "Traveller"))
        #expect(traveller.multiplicity == .one)
        #expect(traveller.targetSet == "People")
        #expect(traveller.joinColumns == [.init(local: "UserName", remote: "UserName")])
        // Partners walk one relationship, from either end.
        #expect(traveller.relationship == trips.relationship)
        #expect(traveller.fromRole == trips.toRole && traveller.toRole == trips.fromRole)

        let friends = try #require(person.navigationProperty(named: "Friends"))
        #expect(friends.multiplicity == .many && friends.targetSet == "People" && friends.joinColumns.isEmpty)
        #expect(friends.relationship != trips.relationship)

        let association = try #require(model.associations.first { "Trippin." + $0.name == trips.relationship })
        #expect(association.principal.entityType == "Trippin.Person")
        #expect(association.dependent.entityType == "Trippin.Trip")
        #expect(association.principal.multiplicity == .one && association.dependent.multiplicity == .many)
        #expect(association.principalColumns == ["UserName"] && association.dependentColumns == ["UserName"])
    }

    @Test("Strata's CSDL 4.0 shape: Core.Computed keys, Precision on dates, partners and constraints, bindings")
    func strataShape() throws {
        let xml = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:Reference Uri="https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Core.V1.xml"><edmx:Include Namespace="Org.OData.Core.V1" Alias="Core"/></edmx:Reference><edmx:DataServices><Schema Namespace="edmexampleModel" xmlns="http://docs.oasis-open.org/odata/ns/edm">
        <EntityType Name="Person"><Key><PropertyRef Name="personID"/></Key><Property Name="personID" Type="Edm.Int32" Nullable="false"><Annotation Term="Core.Computed" Bool="true"/></Property><Property Name="createDate" Type="Edm.DateTimeOffset" Precision="6"/><NavigationProperty Name="PersonCar" Type="Collection(edmexampleModel.PersonCar)" Partner="Person"/></EntityType>
        <EntityType Name="PersonCar"><Key><PropertyRef Name="personCarID"/></Key><Property Name="personCarID" Type="Edm.Int32" Nullable="false"/><Property Name="personID" Type="Edm.Int32"/><NavigationProperty Name="Person" Type="edmexampleModel.Person" Partner="PersonCar"><ReferentialConstraint Property="personID" ReferencedProperty="personID"/></NavigationProperty></EntityType>
        <EntityContainer Name="edmexampleEntities"><EntitySet Name="Person" EntityType="edmexampleModel.Person"><NavigationPropertyBinding Path="PersonCar" Target="PersonCar"/></EntitySet><EntitySet Name="PersonCar" EntityType="edmexampleModel.PersonCar"><NavigationPropertyBinding Path="Person" Target="Person"/></EntitySet></EntityContainer>
        </Schema></edmx:DataServices></edmx:Edmx>
        """
        let model = try MetadataReader.read(Data(xml.utf8))
        #expect(model.containerName == "edmexampleEntities")
        let person = try #require(model.entityTypes.first { $0.name == "Person" })
        #expect(person.property(named: "personID")?.isServerGenerated == true)
        #expect(person.property(named: "createDate")?.type == .dateTimeOffset)
        let link = try #require(person.navigationProperty(named: "PersonCar"))
        #expect(link.multiplicity == .many && link.targetSet == "PersonCar")
        #expect(link.joinColumns == [.init(local: "personID", remote: "personID")])
        let back = try #require(model.entityTypes.first { $0.name == "PersonCar" }?.navigationProperty(named: "Person"))
        #expect(back.multiplicity == .zeroOrOne && back.targetSet == "Person")
    }

    @Test("A V2 document is still read as V2; a document without a schema is refused")
    func versions() throws {
        let v2 = """
        <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx"><edmx:DataServices><Schema Namespace="ns" xmlns="http://schemas.microsoft.com/ado/2008/09/edm"><EntityType Name="A"><Key><PropertyRef Name="id"/></Key><Property Name="id" Type="Edm.DateTime" Nullable="false"/></EntityType><EntityContainer Name="c"><EntitySet Name="As" EntityType="ns.A"/></EntityContainer></Schema></edmx:DataServices></edmx:Edmx>
        """
        let model = try MetadataReader.read(Data(v2.utf8))
        #expect(model.entityTypes.first?.properties.first?.type == .dateTime)
        #expect(throws: (any Error).self) {
            try MetadataReader.read(Data(#"<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"/>"#.utf8))
        }
    }
}
