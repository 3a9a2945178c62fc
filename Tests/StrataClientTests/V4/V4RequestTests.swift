import Foundation
@testable import StrataClient
import Testing

/// What a V4 request carries, without a server: headers, the query string, bodies and links, and
/// the ids the client completes minimal metadata with.
@Suite("V4: requests and entity ids")
struct V4RequestTests {
    @Test("V4 sends OData-MaxVersion, Accept minimal and OData-Version on a body; V2 its own headers; given headers stay")
    func headers() {
        var get = StrataRequest(.get, "People")
        VersionHeaders(version: .v4).add(to: &get)
        #expect(get.headers["OData-MaxVersion"] == "4.0")
        #expect(get.headers["Accept"] == "application/json;odata.metadata=minimal")
        #expect(get.headers["OData-Version"] == nil && get.headers["MaxDataServiceVersion"] == nil)
        var post = StrataRequest.json(.post, "People", body: Array("{}".utf8), headers: ["Accept": "application/xml"])
        VersionHeaders(version: .v4).add(to: &post)
        #expect(post.headers["OData-Version"] == "4.0" && post.headers["Accept"] == "application/xml")
        var v2 = StrataRequest.json(.post, "People", body: Array("{}".utf8))
        VersionHeaders(version: .v2).add(to: &v2)
        #expect(v2.headers["MaxDataServiceVersion"] == "2.0" && v2.headers["DataServiceVersion"] == "2.0")
        #expect(v2.headers["OData-MaxVersion"] == nil && v2.headers["Accept"] == nil)
    }

    @Test("The total count is $count=true in V4 and $inlinecount=allpages in V2; the rest prints alike")
    func count() throws {
        let v4 = DataService(url: URL(string: "http://example.com/trippin/")!, maxVersion: .v4)
        let v2 = DataService(url: URL(string: "http://example.com/trippin/")!)
        let query = { (service: DataService) in service.set("People").orderBy("UserName").top(2).inlineCount() }
        #expect(query(v4).requestPath == "People?$orderby=UserName&$top=2&$count=true")
        #expect(query(v2).requestPath == "People?$orderby=UserName&$top=2&$inlinecount=allpages")
        #expect(v4.set("People").inlineCount().requestPath == "People?$count=true")
        // V2 writes `$inlinecount=none`; V4 says the same with `$count=false`.
        #expect(v4.set("People").inlineCount(.none).requestPath == "People?$count=false")
    }

    @Test("Key predicates, nested $expand options and $search in V4's syntax; V2 prints keys with its prefixes and has no $search")
    func v4Syntax() throws {
        let v4 = DataService(url: URL(string: "http://example.com/trippin/")!, maxVersion: .v4)
        let v2 = DataService(url: URL(string: "http://example.com/trippin/")!)
        let guid = UUID(uuidString: "01234567-89AB-CDEF-0123-456789ABCDEF")!
        #expect(v4.set("Big").key(.single(.int64(5_000_000_000))).requestPath == "Big(5000000000)")
        #expect(v2.set("Big").key(.single(.int64(5_000_000_000))).requestPath == "Big(5000000000L)")
        #expect(v4.set("Ids").key(.single(.guid(guid))).requestPath == "Ids(01234567-89ab-cdef-0123-456789abcdef)")
        #expect(v2.set("Ids").key(.single(.guid(guid))).requestPath.hasPrefix("Ids(guid'"))
        let expanded = v4.set("Person").expand("PersonCar/Car", options: ExpandOptions(top: 1, count: true))
        #expect(expanded.requestPath.removingPercentEncoding == "Person?$expand=PersonCar/Car($top=1;$count=true)")
        let searched = try v4.set("Person").search(parsing: "red OR blue").search(.term("used car"))
        #expect(searched.requestPath.removingPercentEncoding == "Person?$search=(red OR blue) AND \"used car\"")
        #expect(throws: StrataError.self) { try v4.set("Person").search(parsing: "\"open") }
    }

    struct Body: Encodable { var when: Date; var big: Int64; var price: Decimal; var bytes: Data; var name: String }

    @Test("V4 bodies: ISO 8601 dates, Int64 and Decimal as exact numbers, base64url; V2 keeps its forms")
    func bodies() throws {
        let body = Body(when: Date(timeIntervalSince1970: 1_257_008_908.44), big: 9_007_199_254_740_993,
                        price: Decimal(string: "12.50")!, bytes: Data([0xfb, 0xff]), name: "x")
        let v4 = String(decoding: try ODataEncoder(version: .v4).encodeBody(body), as: UTF8.self)
        #expect(v4 == #"{"when":"2009-10-31T17:08:28.440Z","big":9007199254740993,"price":12.5,"bytes":"-_8","name":"x"}"#)
        let v2 = String(decoding: try ODataEncoder().encodeBody(body), as: UTF8.self)
        #expect(v2 == #"{"when":"/Date(1257008908440)/","big":"9007199254740993","price":"12.5","bytes":"+/8=","name":"x"}"#)
    }

    @Test("Bindings: Nav@odata.bind in V4, __metadata.uri in V2, arrays for to-many")
    func bindings() throws {
        for (version, expected) in [
            (ODataVersion.v4, #"{"a":1,"Traveller@odata.bind":"http://example.com/trippin/People('russell')","Friends@odata.bind":["http://example.com/trippin/People('a')","http://example.com/trippin/People('b')"]}"#),
            (.v2, #"{"a":1,"Traveller":{"__metadata":{"uri":"http://example.com/trippin/People('russell')"}},"Friends":[{"__metadata":{"uri":"http://example.com/trippin/People('a')"}},{"__metadata":{"uri":"http://example.com/trippin/People('b')"}}]}"#),
        ] {
            let service = DataService(url: URL(string: "http://example.com/trippin/")!, maxVersion: version)
            let people = service.set("People")
            let body = try people.encode(["a": 1], binding: [
                .to("Traveller", people.key("russell")),
                .to("Friends", [people.key("a"), people.key("b")]),
            ])
            #expect(String(decoding: body, as: UTF8.self) == expected, "\(version)")
        }
    }

    @Test("Minimal metadata completed from a non-Strata model: ids from set and key, types, expanded entities through bindings")
    func completion() throws {
        let model = try MetadataReader.read(Data(TripPinMetadata.xml.utf8))
        let identifier = EntityIdentifier(model: model, serviceRoot: URL(string: "http://example.com/trippin/")!)
        #expect(identifier.entitySet(context: "http://example.com/trippin/$metadata#People")?.name == "People")
        #expect(identifier.entitySet(context: "http://example.com/trippin/$metadata#People(UserName,Trips())/$entity")?.name == "People")
        #expect(identifier.entitySet(context: "http://example.com/trippin/$metadata#People('russell')/Trips")?.name == "AllTrips")
        #expect(identifier.entitySet(context: "http://example.com/trippin/$metadata#People('russell')/FirstName") == nil)
        #expect(identifier.entitySet(context: "http://example.com/trippin/$metadata#Collection($ref)") == nil)

        let json = try JSONValue.parse(Array(#"{"@odata.etag":"W/\"1\"","UserName":"russell whyte","Trips":[{"TripId":7},{"Budget":1}]}"#.utf8))
        let set = try #require(model.entitySet(named: "People"))
        let entity = Entity(json: identifier.complete(try #require(json.objectValue), in: set))
        #expect(entity.uri?.absoluteString == "http://example.com/trippin/People('russell%20whyte')")
        #expect(entity.type == "Trippin.Person")
        #expect(entity.etag == "W/\"1\"")
        #expect(entity.related("Trips").map { $0.uri?.absoluteString } == ["http://example.com/trippin/AllTrips(7)", nil],
                "a related entity without its key gets no id")
        let relative = identifier.complete(JSONObject([("@odata.id", .string("People('a')")), ("UserName", .string("a"))]), in: set)
        #expect(relative["@odata.id"]?.stringValue == "http://example.com/trippin/People('a')")
    }
}
