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
        /// V4's `any`/`all` over a collection-valued navigation property (Boolean).
        case lambda(BoundLambda)
        /// V4's `Nav/$count`: how many related entities (`Edm.Int64`).
        case count(BoundCollectionPath)
    }

    /// Every property path of the entity itself (scope 0) in the expression, lambdas' predicates
    /// included, in reading order (with repeats): the paths whose joins the outer statement needs.
    package var propertyPaths: [BoundPropertyPath] {
        propertyPaths(inScope: 0)
    }

    /// The property paths that start at the range variable `scope` (0: the entity, n: the variable of
    /// the lambda nested n deep), wherever they occur.
    package func propertyPaths(inScope scope: Int) -> [BoundPropertyPath] {
        var paths: [BoundPropertyPath] = []
        collectPaths(inScope: scope, into: &paths)
        return paths
    }

    private func collectPaths(inScope scope: Int, into paths: inout [BoundPropertyPath]) {
        switch node {
        case .literal, .count: break
        case .property(let path): if path.scope == scope { paths.append(path) }
        case .binary(_, let lhs, let rhs, _):
            lhs.collectPaths(inScope: scope, into: &paths)
            rhs.collectPaths(inScope: scope, into: &paths)
        case .unary(_, let operand), .cast(let operand): operand.collectPaths(inScope: scope, into: &paths)
        case .call(_, let arguments): for argument in arguments { argument.collectPaths(inScope: scope, into: &paths) }
        case .lambda(let lambda): lambda.predicate?.collectPaths(inScope: scope, into: &paths)
        }
    }

    /// The lambdas and `$count`s directly in this expression (not those inside their predicates),
    /// in reading order.
    package var collectionUses: [(collection: BoundCollectionPath, predicate: BoundExpression?)] {
        var uses: [(BoundCollectionPath, BoundExpression?)] = []
        collectUses(into: &uses)
        return uses
    }

    private func collectUses(into uses: inout [(BoundCollectionPath, BoundExpression?)]) {
        switch node {
        case .literal, .property: break
        case .binary(_, let lhs, let rhs, _):
            lhs.collectUses(into: &uses)
            rhs.collectUses(into: &uses)
        case .unary(_, let operand), .cast(let operand): operand.collectUses(into: &uses)
        case .call(_, let arguments): for argument in arguments { argument.collectUses(into: &uses) }
        case .lambda(let lambda): uses.append((lambda.collection, lambda.predicate))
        case .count(let collection): uses.append((collection, nil))
        }
    }
}

/// A V4 lambda, bound: `PersonCar/any(pc: pc/Car/make eq 'Ford')`.
package struct BoundLambda: Sendable, Hashable {
    /// `any` or `all`.
    package var op: LambdaOperator
    /// The collection the variable ranges over.
    package var collection: BoundCollectionPath
    /// The predicate, whose paths of the variable have scope ``variableScope``; nil for `any()`.
    package var predicate: BoundExpression?
    /// The scope number of the lambda's variable: its nesting depth, 1 for the outermost lambda.
    package var variableScope: Int

    package init(op: LambdaOperator, collection: BoundCollectionPath, predicate: BoundExpression?, variableScope: Int) {
        self.op = op
        self.collection = collection
        self.predicate = predicate
        self.variableScope = variableScope
    }
}

/// The path to a collection of related entities: from a range variable through zero or more
/// single-valued navigation properties, then one collection-valued one (the last hop).
package struct BoundCollectionPath: Sendable, Hashable {
    /// Where the path starts: 0 for the entity, n for the variable of the lambda nested n deep.
    package var scope: Int
    /// The hops; only the last leads to many entities.
    package var hops: [NavigationHop]

    package init(scope: Int, hops: [NavigationHop]) {
        self.scope = scope
        self.hops = hops
    }
}

/// A property reached from the entity the options apply to, through zero or more single-valued
/// navigation properties: `PersonCar/Car/make` from PersonCarMaintenance is two hops and the column `make`.
package struct BoundPropertyPath: Sendable, Hashable {
    /// The joins, first to last; empty for a property of the entity itself.
    package var navigation: [NavigationHop]
    /// The property (column) at the end, on the last hop's target (or the entity itself).
    package var property: EntityProperty
    /// Where the path starts (V4): 0 for the entity the options apply to, n for the variable of the
    /// lambda nested n deep.
    package var scope: Int

    package init(navigation: [NavigationHop], property: EntityProperty, scope: Int = 0) {
        self.navigation = navigation
        self.property = property
        self.scope = scope
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
