import Foundation
import StrataClient
import Testing

/// A model as an app would write it, with its fields for the typed filter DSL.
struct TypedPerson: Codable, Sendable, Equatable {
    var personID: Int
    var firstName: String
    var lastName: String
    var ssn: String?
    var createDate: Date

    static let personID = Field<Int>("personID")
    static let firstName = Field<String>("firstName")
    static let lastName = Field<String>("lastName")
    static let ssn = Field<String?>("ssn")
    static let createDate = Field<Date>("createDate")
}

@Suite("Typed fields")
struct FieldTests {
    @Test("Comparisons print the filter you would write by hand")
    func comparisons() {
        #expect((TypedPerson.lastName == "O'Brien").text == "lastName eq 'O''Brien'")
        #expect((TypedPerson.personID > 3).text == "personID gt 3")
        #expect((TypedPerson.personID <= 3_000_000_000).text == "personID le 3000000000L")
        #expect((TypedPerson.ssn == nil).text == "ssn eq null")
        #expect((TypedPerson.ssn != nil).text == "ssn ne null")
        #expect((TypedPerson.ssn >= "5").text == "ssn ge '5'")
        #expect((TypedPerson.firstName == TypedPerson.lastName).text == "firstName eq lastName")
        let date = Date(timeIntervalSince1970: 1_257_008_908.44)
        #expect((TypedPerson.createDate < date).text == "createDate lt datetime'2009-10-31T17:08:28.440'")
    }

    @Test("String functions and combinations")
    func functions() {
        let filter = TypedPerson.lastName.startsWith("S") && !TypedPerson.firstName.contains("ob") || TypedPerson.ssn.endsWith("4")
        #expect(filter.text == "startswith(lastName,'S') and not substringof('ob',firstName) or endswith(ssn,'4')")
    }

    @Test("Sort items and select items from fields")
    func orderAndSelect() {
        let query = DataService(url: URL(string: "http://example.invalid/cardealer/")!).set("Person")
            .orderBy(TypedPerson.lastName.ascending, TypedPerson.createDate.descending)
            .select(TypedPerson.lastName.selectItem)
        #expect(query.requestPath == "Person?$orderby=lastName,createDate%20desc&$select=lastName")
    }
}
