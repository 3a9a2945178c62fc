import Foundation
import StrataCore
import Testing

@Suite struct QueryOptionsTests {
    @Test func seedRequests() throws {
        let seed000 = try QueryOptions(parsing: "?$expand=PersonCar,PersonCar/Car")
        #expect(seed000 == QueryOptions(expand: ["PersonCar", "PersonCar/Car"]))
        let seed001 = try QueryOptions(parsing: "$filter=PartitionKey%20eq%20'Events'")
        #expect(seed001.filter == .property("PartitionKey").eq("Events"))
    }

    @Test func everyOption() throws {
        let raw = "$filter=lastName+eq+'O''Brien'&$orderby=lastName%20desc,firstName&$top=5&$skip=10"
            + "&$select=firstName,PersonCar&$expand=PersonCar/Car&$inlinecount=allpages&$skiptoken=abc%3D%3D"
            + "&$format=json&code=42&flag&code=7"
        let options = try QueryOptions(parsing: raw)
        #expect(options == QueryOptions(
            filter: .property("lastName").eq("O'Brien"),
            orderBy: [.descending(.property("lastName")), .ascending(.property("firstName"))],
            top: 5, skip: 10,
            select: ["firstName", "PersonCar"],
            expand: ["PersonCar/Car"],
            inlineCount: .allPages,
            skipToken: "abc==",
            format: "json",
            customOptions: [.init(name: "code", value: "42"), .init(name: "flag", value: ""), .init(name: "code", value: "7")]))
        #expect(options.queryString == "$filter=lastName%20eq%20'O''Brien'&$orderby=lastName%20desc,firstName&$top=5&$skip=10"
            + "&$select=firstName,PersonCar&$expand=PersonCar/Car&$inlinecount=allpages&$skiptoken=abc%3D%3D"
            + "&$format=json&code=42&flag=&code=7")
        #expect(try QueryOptions(parsing: options.queryString) == options)
    }

    /// Names and strings beyond ASCII take the lexer's slow path (Unicode properties, multi-byte
    /// UTF-8); ASCII takes the fast one. Both must read the same text back.
    @Test func namesAndStringsBeyondASCII() throws {
        let options = try QueryOptions(parsing: "$filter=Prénom eq 'Zoë''s 🚗' and Größe٣ gt 'x'&$select=名前,Größe٣,ab_9&$orderby=Prénom%20desc")
        #expect(options.filter == (QueryExpression.property("Prénom").eq("Zoë's 🚗") && QueryExpression.property("Größe٣").gt("x")))
        #expect(options.select == ["名前", "Größe٣", "ab_9"])
        #expect(options.orderBy == [.descending(.property("Prénom"))])
        // A digit cannot start a name, in ASCII or beyond; an ASCII symbol cannot continue one.
        #expect(throws: ODataError.self) { try QueryOptions(parsing: "$select=٣x") }
        #expect(throws: ODataError.self) { try QueryOptions(parsing: "$select=a#b") }
        // `&` and `=` split the query string as bytes, whatever follows them.
        let split = try QueryOptions(parsing: "x=&\u{301}y=é=1&$top=2")
        #expect(split.customOptions == [.init(name: "x", value: ""), .init(name: "\u{301}y", value: "é=1")])
        #expect(split.top == 2)
    }

    @Test func emptyQueryString() throws {
        #expect(try QueryOptions(parsing: "") == QueryOptions())
        #expect(try QueryOptions(parsing: "?") == QueryOptions())
        #expect(try QueryOptions(parsing: "&&").isEmpty)
        #expect(QueryOptions().queryString == "")
    }

    @Test func builtQueryString() {
        var options = QueryOptions()
        options.filter = .property("lastName").eq("Samson") && .property("personID").gt(1)
        options.expand = ["PersonCar", "PersonCar/Car"]
        options.top = 2
        #expect(options.queryString == "$filter=lastName%20eq%20'Samson'%20and%20personID%20gt%201&$top=2&$expand=PersonCar,PersonCar/Car")
        options.filter = .property("name").eq("a&b=c+d%e#f")
        #expect(options.queryString.hasPrefix("$filter=name%20eq%20'a%26b%3Dc%2Bd%25e%23f'"))
    }

    @Test func plusIsSpaceAndExponentsSurvive() throws {
        #expect(try QueryOptions(parsing: "$filter=a+eq+1.5E+10").filter == .property("a").eq(.literal(.double(1.5e10))))
        #expect(try QueryOptions(parsing: "$filter=a%20eq%201.5E%2B10").filter == .property("a").eq(.literal(.double(1.5e10))))
    }

    @Test(arguments: [
        ("$foo=1", "Unknown system query option '$foo'; OData V2 defines $filter, $orderby, $top, $skip, $select, $expand, $inlinecount, $skiptoken, $format"),
        ("$Filter=a", "Unknown system query option '$Filter'; system query options are lowercase: $filter"),
        ("$count=true", "Unknown system query option '$count'; OData V2 defines $filter, $orderby, $top, $skip, $select, $expand, $inlinecount, $skiptoken, $format"),
        ("$top=1&$top=2", "The query option $top appears more than once; give it once"),
        ("$filter=a%2", "The query option '$filter=a%2' has an invalid percent escape; write % as %25"),
        ("=5", "The query string has a value without an option name: '=5'"),
        ("$skiptoken=", "$skiptoken is empty; pass the token from the __next link unchanged"),
        ("$format", "$format is empty; write $format=json"),
        ("$filter", "$filter: expected an operand at column 1"),
        ("$top=ten", "$top: 'ten' is not a non-negative integer"),
        ("$top=10001", "$top: 10001 exceeds the maximum of 10000; page through the rest with $skip or the response's __next link"),
        ("$inlinecount=some", "$inlinecount: 'some' is not allpages or none"),
        ("$orderby=lastName+up", "$orderby: unknown direction 'up' at column 10; use asc or desc"),
    ])
    func refusals(raw: String, message: String) {
        #expect(errorMessage { () throws(ODataError) in try QueryOptions(parsing: raw) } == message)
    }
}
