import Foundation

/// A CSDL 4.0 document shaped like OData's TripPin sample service, written by hand: not Strata's.
/// Two schemas (types in one, the container in another, with an alias), an enumeration, a complex
/// type and a collection of them, a derived entity type, a string key, a to-many navigation with a
/// partner that holds the referential constraint, a navigation without a partner, a singleton, and
/// bindings whose targets are container-qualified.
enum TripPinMetadata {
    static let xml = """
    <?xml version="1.0" encoding="utf-8"?>
    <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
      <edmx:Reference Uri="https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Core.V1.xml">
        <edmx:Include Namespace="Org.OData.Core.V1" Alias="Core"/>
      </edmx:Reference>
      <edmx:DataServices>
        <Schema Namespace="Trippin" Alias="self" xmlns="http://docs.oasis-open.org/odata/ns/edm">
          <EnumType Name="PersonGender">
            <Member Name="Male" Value="0"/>
            <Member Name="Female" Value="1"/>
          </EnumType>
          <ComplexType Name="Location">
            <Property Name="Address" Type="Edm.String"/>
          </ComplexType>
          <EntityType Name="Person">
            <Key><PropertyRef Name="UserName"/></Key>
            <Property Name="UserName" Type="Edm.String" Nullable="false"/>
            <Property Name="FirstName" Type="Edm.String" Nullable="false" MaxLength="40"/>
            <Property Name="Gender" Type="self.PersonGender" Nullable="false"/>
            <Property Name="Age" Type="Edm.Int64"/>
            <Property Name="Emails" Type="Collection(Edm.String)"/>
            <Property Name="AddressInfo" Type="Collection(self.Location)"/>
            <Property Name="Photo" Type="Edm.Stream"/>
            <NavigationProperty Name="Friends" Type="Collection(self.Person)"/>
            <NavigationProperty Name="Trips" Type="Collection(Trippin.Trip)" Partner="Traveller"/>
          </EntityType>
          <EntityType Name="Employee" BaseType="self.Person">
            <Property Name="Cost" Type="Edm.Decimal" Precision="12" Scale="2"/>
          </EntityType>
          <EntityType Name="Trip">
            <Key><PropertyRef Name="TripId"/></Key>
            <Property Name="TripId" Type="Edm.Int32" Nullable="false">
              <Annotation Term="Org.OData.Core.V1.Computed" Bool="true"/>
            </Property>
            <Property Name="UserName" Type="Edm.String" Nullable="false"/>
            <Property Name="ShareId" Type="Edm.Guid" Nullable="false"/>
            <Property Name="Budget" Type="Edm.Single" Nullable="false"/>
            <Property Name="StartsAt" Type="Edm.DateTimeOffset" Nullable="false"/>
            <Property Name="StartDate" Type="Edm.Date"/>
            <Property Name="Departure" Type="Edm.TimeOfDay"/>
            <Property Name="Duration" Type="Edm.Duration"/>
            <NavigationProperty Name="Traveller" Type="Trippin.Person" Nullable="false" Partner="Trips">
              <ReferentialConstraint Property="UserName" ReferencedProperty="UserName"/>
            </NavigationProperty>
          </EntityType>
        </Schema>
        <Schema Namespace="Trippin.Container" xmlns="http://docs.oasis-open.org/odata/ns/edm">
          <EntityContainer Name="Container">
            <EntitySet Name="People" EntityType="Trippin.Person">
              <NavigationPropertyBinding Path="Friends" Target="People"/>
              <NavigationPropertyBinding Path="Trips" Target="Trippin.Container.Container/AllTrips"/>
            </EntitySet>
            <EntitySet Name="AllTrips" EntityType="Trippin.Trip">
              <NavigationPropertyBinding Path="Traveller" Target="People"/>
            </EntitySet>
            <Singleton Name="Me" Type="Trippin.Person"/>
          </EntityContainer>
        </Schema>
      </edmx:DataServices>
    </edmx:Edmx>
    """
}
