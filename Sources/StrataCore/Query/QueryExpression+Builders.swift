/// A small vocabulary for building filters in Swift, so that client code reads like the URL it makes:
/// `.property("make").eq("Ford") && .call(.startswith, [.property("model"), "Fo"])`.
///
/// Swift literals become OData literals: strings `Edm.String`, integers `Edm.Int32` (`Edm.Int64` when
/// too large), Booleans `Edm.Boolean`. Other types are written as `.literal(.decimal(1.5))` and so on.
extension QueryExpression: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    public init(stringLiteral value: String) {
        self = .literal(.string(value))
    }

    public init(integerLiteral value: Int64) {
        self = .literal(Int32(exactly: value).map(ODataValue.int32) ?? .int64(value))
    }

    public init(booleanLiteral value: Bool) {
        self = .literal(.boolean(value))
    }

    /// The `null` literal.
    public static let null = QueryExpression.literal(.null)

    /// `self eq other`.
    public func eq(_ other: QueryExpression) -> QueryExpression { .binary(.eq, self, other) }
    /// `self ne other`.
    public func ne(_ other: QueryExpression) -> QueryExpression { .binary(.ne, self, other) }
    /// `self gt other`.
    public func gt(_ other: QueryExpression) -> QueryExpression { .binary(.gt, self, other) }
    /// `self ge other`.
    public func ge(_ other: QueryExpression) -> QueryExpression { .binary(.ge, self, other) }
    /// `self lt other`.
    public func lt(_ other: QueryExpression) -> QueryExpression { .binary(.lt, self, other) }
    /// `self le other`.
    public func le(_ other: QueryExpression) -> QueryExpression { .binary(.le, self, other) }
    /// `self add other`.
    public func add(_ other: QueryExpression) -> QueryExpression { .binary(.add, self, other) }
    /// `self sub other`.
    public func sub(_ other: QueryExpression) -> QueryExpression { .binary(.sub, self, other) }
    /// `self mul other`.
    public func mul(_ other: QueryExpression) -> QueryExpression { .binary(.mul, self, other) }
    /// `self div other`.
    public func div(_ other: QueryExpression) -> QueryExpression { .binary(.div, self, other) }
    /// `self mod other`.
    public func mod(_ other: QueryExpression) -> QueryExpression { .binary(.mod, self, other) }

    /// `lhs and rhs`.
    public static func && (lhs: QueryExpression, rhs: QueryExpression) -> QueryExpression { .binary(.and, lhs, rhs) }
    /// `lhs or rhs`.
    public static func || (lhs: QueryExpression, rhs: QueryExpression) -> QueryExpression { .binary(.or, lhs, rhs) }
    /// `not operand`.
    public static prefix func ! (operand: QueryExpression) -> QueryExpression { .unary(.not, operand) }
}
