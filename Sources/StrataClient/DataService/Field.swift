import Foundation
import StrataCore

/// A property of a model with its Swift type, so that filters and sort orders are checked by the
/// compiler and read like Swift:
///
/// ```swift
/// struct Person: Codable, Sendable {
///     var personID: Int
///     var lastName: String
///     var ssn: String?
///     var createDate: Date
///
///     static let personID = Field<Int>("personID")
///     static let lastName = Field<String>("lastName")
///     static let ssn = Field<String?>("ssn")
///     static let createDate = Field<Date>("createDate")
/// }
///
/// let recent = try await service.set("Person")
///     .filter(Person.createDate >= cutoff && Person.ssn != nil && Person.lastName.startsWith("S"))
///     .orderBy(Person.lastName.ascending)
///     .all(as: Person.self)
/// ```
///
/// Comparisons produce StrataCore ``QueryExpression``s, so they combine with `&&`, `||` and `!`,
/// and with expressions built any other way. A field names one property, or a property behind
/// to-one navigation properties (`Field<String>("Car/make")` on `PersonCar`).
public struct Field<Value: ODataValueConvertible>: Sendable {
    /// The property's path: `lastName`, or `Car/make`.
    public let path: PropertyPath

    /// The field for the property at `path`: `Field<String>("lastName")`.
    public init(_ path: PropertyPath) {
        self.path = path
    }

    /// The property as a filter operand.
    public var expression: QueryExpression { .property(path) }
    /// Sort by this property, smallest first.
    public var ascending: OrderByItem { .ascending(expression) }
    /// Sort by this property, largest first.
    public var descending: OrderByItem { .descending(expression) }
    /// The property as a `$select` item.
    public var selectItem: SelectItem { SelectItem(path) }

    /// `field eq value`; comparing with `nil` tests for null.
    public static func == (lhs: Field, rhs: Value) -> QueryExpression { lhs.expression.eq(.literal(rhs.odataValue)) }
    /// `field ne value`; comparing with `nil` tests for a value.
    public static func != (lhs: Field, rhs: Value) -> QueryExpression { lhs.expression.ne(.literal(rhs.odataValue)) }
    /// `field eq other`.
    public static func == (lhs: Field, rhs: Field) -> QueryExpression { lhs.expression.eq(rhs.expression) }
    /// `field ne other`.
    public static func != (lhs: Field, rhs: Field) -> QueryExpression { lhs.expression.ne(rhs.expression) }
}

/// Types OData orders with `lt`, `le`, `gt` and `ge`: numbers, strings, dates and times (and optionals
/// of them, compared with null semantics on the server).
public protocol ODataComparable: ODataValueConvertible {}

extension String: ODataComparable {}
extension Int: ODataComparable {}
extension Int64: ODataComparable {}
extension Int32: ODataComparable {}
extension Int16: ODataComparable {}
extension Int8: ODataComparable {}
extension UInt8: ODataComparable {}
extension Double: ODataComparable {}
extension Float: ODataComparable {}
extension Decimal: ODataComparable {}
extension Date: ODataComparable {}
extension ODataDateTime: ODataComparable {}
extension ODataDateTimeOffset: ODataComparable {}
extension ODataTime: ODataComparable {}
extension Optional: ODataComparable where Wrapped: ODataComparable {}

extension Field where Value: ODataComparable {
    /// `field lt value`.
    public static func < (lhs: Field, rhs: Value) -> QueryExpression { lhs.expression.lt(.literal(rhs.odataValue)) }
    /// `field le value`.
    public static func <= (lhs: Field, rhs: Value) -> QueryExpression { lhs.expression.le(.literal(rhs.odataValue)) }
    /// `field gt value`.
    public static func > (lhs: Field, rhs: Value) -> QueryExpression { lhs.expression.gt(.literal(rhs.odataValue)) }
    /// `field ge value`.
    public static func >= (lhs: Field, rhs: Value) -> QueryExpression { lhs.expression.ge(.literal(rhs.odataValue)) }
}

/// `String` and `String?`, whose fields have the string functions.
public protocol ODataStringValue: ODataComparable {}
extension String: ODataStringValue {}
extension Optional: ODataStringValue where Wrapped == String {}

extension Field where Value: ODataStringValue {
    /// `startswith(field,'prefix')`.
    public func startsWith(_ prefix: String) -> QueryExpression {
        .call(.startswith, [expression, .literal(.string(prefix))])
    }

    /// `endswith(field,'suffix')`.
    public func endsWith(_ suffix: String) -> QueryExpression {
        .call(.endswith, [expression, .literal(.string(suffix))])
    }

    /// `substringof('text',field)`: the property contains `text`.
    public func contains(_ text: String) -> QueryExpression {
        .call(.substringof, [.literal(.string(text)), expression])
    }
}
