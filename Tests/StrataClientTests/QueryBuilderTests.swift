import Foundation
import StrataClient
import Testing

/// Every builder option must print a URL that StrataCore's parser — the server's — reads back to
/// the same path and query AST.
@Suite("Query builder")
struct QueryBuilderTests {
    static let service = DataService(url: URL(string: "http://example.invalid:8080/cardealer/")!)
    static let people = service.set("Person")

    /// Parses the query's absolute URL the way the server does and checks it against the builder's AST.
    func expectRoundTrip(_ query: ODataQuery, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = try query.url().absoluteString
        let root = Self.service.rootURL.absoluteString
        #expect(url.hasPrefix(root), sourceLocation: sourceLocation)
        let relative = url.dropFirst(root.count)
        let question = relative.firstIndex(of: "?")
        let rawPath = question.map { relative[..<$0] } ?? relative
        let rawQuery = question.map { relative[relative.index(after: $0)...] } ?? ""
        let path = try ResourcePath.parse(rawPath)
        let options = try QueryOptions(parsing: rawQuery)
        #expect(path == query.path, sourceLocation: sourceLocation)
        #expect(options == query.options, sourceLocation: sourceLocation)
    }

    @Test("An entity set alone is just its name")
    func plainSet() throws {
        #expect(Self.people.requestPath == "Person")
        #expect(try Self.people.url().absoluteString == "http://example.invalid:8080/cardealer/Person")
        try expectRoundTrip(Self.people)
    }

    @Test("Keys: integers, strings with quotes and slashes, Unicode, GUIDs, Int64, composite keys")
    func keys() throws {
        #expect(Self.people.key(1).requestPath == "Person(1)")
        #expect(Self.people.key(Int64(5)).requestPath == "Person(5L)")
        let speakers = DataService(url: URL(string: "http://example.invalid/speakeasy")!).set("Events")
        let composite = speakers.key(["PartitionKey": "Events", "RowKey": "74d5b7e2-c6db-4a8d-b0a4-364754bb90b4"])
        #expect(composite.requestPath == "Events(PartitionKey='Events',RowKey='74d5b7e2-c6db-4a8d-b0a4-364754bb90b4')")
        let cases: [ODataQuery] = [
            Self.people.key(1),
            Self.people.key(Int64.max),
            Self.people.key("O'Brien / Rodríguez, 50% & more?#"),
            Self.people.key("a:b"),
            Self.people.key(UUID(uuidString: "12345678-AAAA-BBBB-CCCC-DDDDEEEEFFFF")!),
            Self.people.key(["PartitionKey": "Events", "RowKey": "x'y"]),
            Self.people.key(["a": 1, "b": true, "c": Decimal(string: "12.50")!]),
        ]
        for query in cases { try expectRoundTrip(query) }
    }

    @Test("A colon in the first key does not turn the path into a URL scheme")
    func colonKey() throws {
        let query = DataService(url: URL(string: "http://example.invalid/speakeasy/")!).set("Events").key("a:b")
        #expect(try query.url().absoluteString == "http://example.invalid/speakeasy/Events('a:b')")
    }

    @Test("Navigation after a key, keyed navigation, and navigation chains")
    func navigation() throws {
        #expect(Self.people.key(1).navigate("PersonCar").requestPath == "Person(1)/PersonCar")
        #expect(Self.people.key(1).navigate("PersonCar").key(2).navigate("Car").requestPath == "Person(1)/PersonCar(2)/Car")
        try expectRoundTrip(Self.people.key(1).navigate("PersonCar").key(2).navigate("Car"))
    }

    @Test("Filters of every kind print canonically and parse back equal")
    func filters() throws {
        let date = ODataDateTime(year: 2009, month: 11, day: 1, hour: 12, minute: 30, second: 5, microsecond: 250_000)!
        let expressions: [QueryExpression] = [
            .property("lastName").eq("Samson"),
            .property("lastName").eq("O'Brien"),
            .property("lastName").eq("Rodríguez & Søn + 100% #1?"),
            .property("personID").gt(3) && .property("personID").le(10),
            .property("ssn").eq(.null) || !(.property("firstName").ne("Bob")),
            .call(.startswith, [.property("lastName"), "S"]),
            .call(.substringof, ["son", .call(.tolower, [.property("lastName")])]),
            .property("createDate").ge(.literal(.dateTime(date))),
            .property("price").lt(.literal(.decimal(Decimal(string: "12.50")!))),
            .property("ratio").eq(.literal(.double(0.1))),
            .property("id").eq(.literal(.guid(UUID(uuidString: "12345678-aaaa-bbbb-cccc-ddddeeeeffff")!))),
            .property("big").eq(.literal(.int64(9_007_199_254_740_993))),
            .property("personID").add(1).mul(2).gt(.property("carID").sub(.unary(.negate, 3))),
            .property("PersonCar/Car/make").eq("Ford"),
            .isOf(nil, typeName: "edmexampleModel.Person"),
        ]
        for expression in expressions {
            try expectRoundTrip(Self.people.filter(expression))
        }
        #expect(Self.people.filter(.property("lastName").eq("O'Brien")).requestPath == "Person?$filter=lastName%20eq%20'O''Brien'")
    }

    @Test("Several filter calls are joined with and")
    func filterConjunction() throws {
        let query = Self.people.filter(.property("personID").gt(3)).filter(.property("personID").lt(9))
        #expect(query.options.filter == .binary(.and, .property("personID").gt(3), .property("personID").lt(9)))
        try expectRoundTrip(query)
    }

    @Test("filter(parsing:) reads OData text and reports syntax errors as invalid requests")
    func filterParsing() throws {
        let parsed = try Self.people.filter(parsing: "lastName eq 'Samson' and personID gt 3")
        #expect(parsed.options.filter == (.property("lastName").eq("Samson") && .property("personID").gt(3)))
        do {
            _ = try Self.people.filter(parsing: "lastName eq")
            Issue.record("a filter without a right-hand side parsed")
        } catch {
            #expect(error.kind == .invalidRequest)
            #expect(error.message.contains("column"))
        }
    }

    @Test("orderby, select, expand, top, skip, inlinecount, skiptoken, format-free custom options")
    func otherOptions() throws {
        let query = Self.people
            .orderBy("lastName")
            .orderBy("createDate", .descending)
            .orderBy(.descending(.call(.length, [.property("firstName")])))
            .select("firstName", "lastName", "PersonCar/*")
            .expand("PersonCar", "PersonCar/Car")
            .expand("PersonCar")
            .top(10)
            .skip(20)
            .inlineCount()
            .skipToken("1,'a b'")
            .option("search", "a&b=c d")
        #expect(query.options.expand == ["PersonCar", "PersonCar/Car"])
        #expect(query.requestPath.contains("$orderby=lastName,createDate%20desc,length(firstName)%20desc"))
        #expect(query.requestPath.contains("$expand=PersonCar,PersonCar/Car"))
        #expect(query.requestPath.contains("search=a%26b%3Dc%20d"))
        try expectRoundTrip(query)
        try expectRoundTrip(Self.people.select(.all))
        try expectRoundTrip(Self.people.inlineCount(.none))
    }

    @Test("Builders return new queries and leave the original alone")
    func valueSemantics() {
        let base = Self.people.top(5)
        let refined = base.filter(.property("personID").eq(1)).key(1)
        #expect(base.requestPath == "Person?$top=5")
        #expect(refined.requestPath == "Person(1)?$filter=personID%20eq%201&$top=5")
    }

    @Test("A service below the connection's base URL prefixes its path")
    func servicePath() throws {
        let connection = Connection(baseURL: URL(string: "http://example.invalid:8080")!)
        let service = DataService(connection: connection, path: "cardealer")
        #expect(service.rootPath == "cardealer/")
        #expect(try service.set("Car").key(5).url().absoluteString == "http://example.invalid:8080/cardealer/Car(5)")
        #expect(service.rootURL.absoluteString == "http://example.invalid:8080/cardealer/")
    }
}
