import Foundation
import StrataCore

/// A resource path and its query options, built step by step and sent when you ask for results.
///
/// Every builder method returns a new query, so queries can be shared and refined:
/// ```swift
/// let people = service.set("Person")
/// let samsons = people.filter(.property("lastName").eq("Samson")).orderBy("firstName")
/// let bob = people.key(1).expand("PersonCar/Car")
/// let cars = people.key(1).navigate("PersonCar")
/// ```
/// The URL is printed by StrataCore's ``QueryPrinter``, the same code whose parser the server runs,
/// so what you build is exactly what the server reads.
public struct ODataQuery: Sendable {
    /// The service the query belongs to.
    public let service: DataService
    /// The resource path below the service root: `Person(1)/PersonCar`.
    public var path: ResourcePath
    /// `$filter`, `$orderby`, `$top` and the other options.
    public var options: QueryOptions

    /// A query for `path` below the service root; ``DataService/set(_:)`` is the usual start.
    public init(service: DataService, path: ResourcePath, options: QueryOptions = QueryOptions()) {
        self.service = service
        self.path = path
        self.options = options
    }

    /// The request path relative to the connection's base URL, with the query string.
    public var requestPath: String { service.path(path, options: options) }

    /// The absolute URL the query requests.
    public func url() throws(StrataError) -> URL {
        try service.connection.url(for: requestPath)
    }

    private func with(_ change: (inout ODataQuery) -> Void) -> ODataQuery {
        var copy = self
        change(&copy)
        return copy
    }

    // MARK: Path

    /// Addresses one entity by a single-property key: `Person(1)`, `Car(5)`. Replaces any key the
    /// last segment already has.
    public func key(_ value: some ODataValueConvertible) -> ODataQuery {
        key(.single(value.odataValue))
    }

    /// Addresses one entity by a composite key, in the order given:
    /// `key(["PartitionKey": "Events", "RowKey": "1"])`.
    public func key(_ values: KeyValuePairs<String, any ODataValueConvertible>) -> ODataQuery {
        key(.named(values.map { KeyPredicate.NamedKeyValue(name: $0.key, value: $0.value.odataValue) }))
    }

    /// Addresses one entity by a key predicate.
    public func key(_ predicate: KeyPredicate) -> ODataQuery {
        with { query in
            guard !query.path.segments.isEmpty else { return }
            query.path.segments[query.path.segments.count - 1].key = predicate
        }
    }

    /// Follows a navigation property: `set("Person").key(1).navigate("PersonCar")` is `Person(1)/PersonCar`.
    public func navigate(_ navigationProperty: String) -> ODataQuery {
        with { $0.path.segments.append(PathSegment(navigationProperty)) }
    }

    // MARK: Options

    /// Adds a `$filter` condition; several calls are joined with `and`.
    public func filter(_ condition: QueryExpression) -> ODataQuery {
        with { query in
            query.options.filter = query.options.filter.map { $0 && condition } ?? condition
        }
    }

    /// Adds a `$filter` condition written as OData text, `lastName eq 'Samson'`.
    ///
    /// - Throws: ``StrataError/Kind/invalidRequest`` naming the column of a syntax error.
    public func filter(parsing text: String) throws(StrataError) -> ODataQuery {
        do {
            return filter(try QueryOptionParser.filter(text))
        } catch {
            throw StrataError(.invalidRequest, code: error.code, message: error.message, underlying: error)
        }
    }

    /// Adds sort keys after any already given.
    public func orderBy(_ items: [OrderByItem]) -> ODataQuery {
        with { $0.options.orderBy += items }
    }

    /// Adds sort keys after any already given: `orderBy(.descending(.property("createDate")))`.
    public func orderBy(_ items: OrderByItem...) -> ODataQuery {
        orderBy(items)
    }

    /// Sorts by a property, `orderBy("lastName")` or `orderBy("createDate", .descending)`.
    public func orderBy(_ property: PropertyPath, _ direction: SortDirection = .ascending) -> ODataQuery {
        orderBy([OrderByItem(.property(property), direction)])
    }

    /// Returns only these properties (`$select`); adds to any already selected.
    public func select(_ items: [SelectItem]) -> ODataQuery {
        with { $0.options.select += items }
    }

    /// Returns only these properties: `select("firstName", "lastName", "PersonCar/*")`.
    public func select(_ items: SelectItem...) -> ODataQuery {
        select(items)
    }

    /// Returns related entities inline (`$expand`); `PersonCar/Car` expands `PersonCar` too.
    public func expand(_ paths: [PropertyPath]) -> ODataQuery {
        with { query in
            for path in paths where !query.options.expand.contains(path) { query.options.expand.append(path) }
        }
    }

    /// Returns related entities inline: `expand("PersonCar", "PersonCar/Car")`.
    public func expand(_ paths: PropertyPath...) -> ODataQuery {
        expand(paths)
    }

    /// Returns the related entities of `path` inline with options of their own (OData V4):
    /// `expand("PersonCar", options: ExpandOptions(filter: .property("carID").gt(2), top: 1, count: true))`.
    /// A V2 service is sent the path alone, which V2 has no syntax to narrow.
    public func expand(_ path: PropertyPath, options: ExpandOptions) -> ODataQuery {
        // The path's prefixes too, as V4's parser lists them: `A/B(…)` expands `A`.
        let prefixes = (1...max(1, path.segments.count)).map { PropertyPath(Array(path.segments.prefix($0))) }
        return expand(prefixes).with { $0.options.expandOptions[path] = options }
    }

    /// Only entities that match a free-text search (OData V4's `$search`); several calls are
    /// joined with AND. On Strata, a term matches when one of the string properties the caller
    /// may read contains it, ignoring case.
    public func search(_ expression: SearchExpression) -> ODataQuery {
        with { query in
            query.options.search = query.options.search.map { .and($0, expression) } ?? expression
        }
    }

    /// The same, written as `$search` text: `search(parsing: "red OR blue NOT used")`.
    ///
    /// - Throws: ``StrataError/Kind/invalidRequest`` naming the column of a syntax error.
    public func search(parsing text: String) throws(StrataError) -> ODataQuery {
        do {
            return search(try QueryOptionParser.search(text))
        } catch {
            throw StrataError(.invalidRequest, code: error.code, message: error.message, underlying: error)
        }
    }

    /// At most `count` entities (`$top`).
    public func top(_ count: Int) -> ODataQuery {
        with { $0.options.top = count }
    }

    /// Leaves out the first `count` entities (`$skip`).
    public func skip(_ count: Int) -> ODataQuery {
        with { $0.options.skip = count }
    }

    /// Asks for the total count of matching entities with the first page (`$inlinecount`); read it
    /// from ``EntityPage/count``.
    public func inlineCount(_ mode: InlineCount = .allPages) -> ODataQuery {
        with { $0.options.inlineCount = mode }
    }

    /// Continues server-driven paging at a token from a `__next` link (`$skiptoken`).
    public func skipToken(_ token: String) -> ODataQuery {
        with { $0.options.skipToken = token }
    }

    /// Adds a custom query option (one whose name does not start with `$`).
    public func option(_ name: String, _ value: String) -> ODataQuery {
        with { $0.options.customOptions.append(CustomQueryOption(name: name, value: value)) }
    }
}
