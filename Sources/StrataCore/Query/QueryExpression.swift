/// An OData `$filter` or `$orderby` expression, as written in the URL and before it is checked
/// against a model. The V2 grammar produces the first seven cases; V4's adds ``in(_:_:)``,
/// ``lambda(_:_:variable:predicate:)`` and ``count(_:)``.
///
/// Build one by parsing (``QueryOptionParser/filter(_:limits:)``) or by hand:
/// ```swift
/// let filter: QueryExpression = .property("PersonCar/Car/make").eq("Ford") && .property("carID").gt(3)
/// ```
/// ``text`` prints the canonical URL form; parsing that text gives back an equal value, with one
/// exception the V2 grammar forces: `Edm.Byte`, `Edm.SByte` and `Edm.Int16` have no literal form, so
/// such literals print as integers and come back as `Edm.Int32` (which compares and computes alike).
public indirect enum QueryExpression: Sendable, Hashable {
    /// A constant: `42`, `'O''Brien'`, `datetime'2009-11-01T00:00:00'`, `null`.
    case literal(ODataValue)
    /// A property of the entity, possibly reached through navigation properties: `PersonCar/Car/make`.
    case property(PropertyPath)
    /// `lhs op rhs`.
    case binary(BinaryOperator, QueryExpression, QueryExpression)
    /// `not x` or `-x`.
    case unary(UnaryOperator, QueryExpression)
    /// One of the V2 functions other than `isof` and `cast`: `startswith(make,'F')`.
    case call(QueryFunction, [QueryExpression])
    /// `isof('T')` (tests the entity itself) or `isof(x,'T')`; the type name is kept as written.
    case isOf(QueryExpression?, typeName: String)
    /// `cast(x,'T')`, or `cast('T')` for the entity itself; the type name is kept as written.
    case cast(QueryExpression?, typeName: String)
    /// V4: `x in (a,b)`, true when x equals one of the values.
    case `in`(QueryExpression, [QueryExpression])
    /// V4: `Nav/any(v: predicate)`, `Nav/all(v: predicate)`, or `Nav/any()` (the collection is not
    /// empty). The path leads to a collection-valued navigation property; it starts at the entity,
    /// at `$it`, or at an enclosing lambda's variable. Inside the predicate, paths that start with
    /// `variable` are about the collection's members.
    case lambda(PropertyPath, LambdaOperator, variable: String?, predicate: QueryExpression?)
    /// V4: `Nav/$count`, the number of related entities of a collection-valued navigation property.
    case count(PropertyPath)
}

/// V4's lambda operators.
public enum LambdaOperator: String, Sendable, Hashable, CaseIterable {
    /// True when at least one member satisfies the predicate (or, without one, when there is a member).
    case any
    /// True when every member satisfies the predicate (so also for an empty collection).
    case all
}

/// The binary operators of OData V2, with the precedence the V2 specification gives them.
public enum BinaryOperator: String, Sendable, Hashable, CaseIterable {
    case or, and
    case eq, ne
    case gt, ge, lt, le
    case add, sub
    case mul, div, mod

    /// Larger binds tighter. Unary operators bind tighter than all of these; member access and
    /// function calls tighter still.
    public var precedence: Int {
        switch self {
        case .or: return 1
        case .and: return 2
        case .eq, .ne: return 3
        case .gt, .ge, .lt, .le: return 4
        case .add, .sub: return 5
        case .mul, .div, .mod: return 6
        }
    }

    /// The operator as written in a URL.
    public var keyword: String { rawValue }

    /// `and`, `or`.
    public var isLogical: Bool { self == .and || self == .or }
    /// `eq`, `ne`.
    public var isEquality: Bool { self == .eq || self == .ne }
    /// `gt`, `ge`, `lt`, `le`.
    public var isRelational: Bool { precedence == 4 }
    /// `add`, `sub`, `mul`, `div`, `mod`.
    public var isArithmetic: Bool { precedence >= 5 }
}

/// The unary operators of OData V2.
public enum UnaryOperator: String, Sendable, Hashable, CaseIterable {
    /// `not x`: Boolean negation.
    case not
    /// `-x`: arithmetic negation.
    case negate = "-"
}

/// A slash-separated path of names: a property (`firstName`), a property behind navigation
/// properties (`PersonCar/Car/make`), or a navigation path in `$expand` (`PersonCar/Car`).
public struct PropertyPath: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The names, first to last.
    public var segments: [String]

    public init(_ segments: [String]) {
        self.segments = segments
    }

    /// Splits `A/B/c` on `/`; no other parsing or validation happens here.
    public init(_ text: String) {
        self.segments = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// The path as written in a URL, `A/B/c`.
    public var description: String { segments.joined(separator: "/") }
}
