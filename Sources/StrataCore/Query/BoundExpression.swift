/// A `$filter` or `$orderby` expression checked against a model, ready for translation to SQL
/// without further checks.
///
/// Every node carries its EDM ``type``; properties are resolved to columns with the navigation hops
/// (joins) that reach them; `isof` is already decided (a Boolean literal or an `ne null` test) and an
/// identity `cast` is gone. Untyped `null` literals keep a nil type: the enclosing binary node's
/// `operandType` says what they stand for (`x eq null` compares in x's type and means `IS NULL`).
package struct BoundExpression: Sendable, Hashable {
    /// The value's type; nil only for untyped `null` and arithmetic or negation on nothing else.
    package var type: EDMPrimitiveType?
    /// What the node computes.
    package var node: Node

    package init(type: EDMPrimitiveType?, node: Node) {
        self.type = type
        self.node = node
    }

    /// The kinds of bound nodes.
    package indirect enum Node: Sendable, Hashable {
        /// A constant; its own type equals the node's type.
        case literal(ODataValue)
        /// A column, possibly on a joined table.
        case property(BoundPropertyPath)
        /// A binary operator. `operandType` is the common type both operands are compared or computed in
        /// after numeric promotion (``EDMPrimitiveType/promoted(_:_:)``): Boolean for `and`/`or`, equal to
        /// the node's type for arithmetic, nil only when both operands are untyped nulls. Operands keep
        /// their own types, so the translator converts where they differ (`Edm.Int32` column vs `Edm.Decimal` literal).
        case binary(BinaryOperator, BoundExpression, BoundExpression, operandType: EDMPrimitiveType?)
        /// `not` (Boolean) or `-` (numeric; an `Edm.Byte` operand is negated as `Edm.Int16`).
        case unary(UnaryOperator, BoundExpression)
        /// A function whose arguments fit one of its signatures; the node's type is the result type and
        /// selects the overload (`round` of an integral argument is the `Edm.Decimal` one).
        case call(QueryFunction, [BoundExpression])
        /// `cast(x,'T')` between different numeric types; T is the node's type. Converting to an integral
        /// type truncates toward zero.
        case cast(BoundExpression)
    }

    /// Every property path in the expression, in reading order (with repeats).
    package var propertyPaths: [BoundPropertyPath] {
        var paths: [BoundPropertyPath] = []
        collectPaths(into: &paths)
        return paths
    }

    private func collectPaths(into paths: inout [BoundPropertyPath]) {
        switch node {
        case .literal: break
        case .property(let path): paths.append(path)
        case .binary(_, let lhs, let rhs, _):
            lhs.collectPaths(into: &paths)
            rhs.collectPaths(into: &paths)
        case .unary(_, let operand), .cast(let operand): operand.collectPaths(into: &paths)
        case .call(_, let arguments): for argument in arguments { argument.collectPaths(into: &paths) }
        }
    }
}

/// A property reached from the entity the options apply to, through zero or more single-valued
/// navigation properties: `PersonCar/Car/make` from PersonCarMaintenance is two hops and the column `make`.
package struct BoundPropertyPath: Sendable, Hashable {
    /// The joins, first to last; empty for a property of the entity itself.
    package var navigation: [NavigationHop]
    /// The property (column) at the end, on the last hop's target (or the entity itself).
    package var property: EntityProperty

    package init(navigation: [NavigationHop], property: EntityProperty) {
        self.navigation = navigation
        self.property = property
    }

    /// The names of the navigation properties followed, which identify a join: paths with equal
    /// prefixes share the joins of that prefix.
    package var navigationNames: [String] { navigation.map(\.property.name) }
}

/// One step through a navigation property that leads to at most one entity (`1` or `0..1`),
/// with what a SQL translator needs to join: the far table and the column pairs.
package struct NavigationHop: Sendable, Hashable {
    /// The qualified name of the entity type the hop starts from.
    package var sourceTypeName: String
    /// The navigation property: its `joinColumns` pair columns of the source with columns of the target,
    /// and its `multiplicity` tells whether the target may be missing (`0..1`, an outer join).
    package var property: NavigationProperty
    /// The entity set (table) at the far end.
    package var targetSet: EntitySet
    /// The entity type at the far end, whose properties the path continues with.
    package var targetType: EntityType

    package init(sourceTypeName: String, property: NavigationProperty, targetSet: EntitySet, targetType: EntityType) {
        self.sourceTypeName = sourceTypeName
        self.property = property
        self.targetSet = targetSet
        self.targetType = targetType
    }
}
