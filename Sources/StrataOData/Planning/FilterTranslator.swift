import StrataCore
import StrataSQL
import StrataStorage

/// Translates bound `$filter` and `$orderby` expressions into SQL for one dialect, with OData's
/// semantics on both databases: two-valued logic (`x ne 'a'` is true for a null x), `eq null` as
/// `IS NULL`, ordinal case-sensitive strings, truncating integer division, 0-based `indexof`,
/// null propagation, and division by zero yielding null instead of an error on one database only.
struct FilterTranslator {
    let dialect: SQLDialect
    /// The database names of the columns properties stand for.
    let names: StorageNames
    /// The alias of the table whose entities the expression is about.
    var rootAlias: String
    /// The name of the entity type at `rootAlias`.
    var rootType: String
    /// Aliases of the joined tables, by the navigation property names that reach them.
    var joinAliases: [[String]: String]
    /// The scope number of `rootAlias`: 0 for the entity, n inside the subquery of the lambda nested
    /// n deep (``BoundPropertyPath/scope``).
    var scope = 0
    /// The statements of the enclosing scopes inside a lambda's subquery, by scope number, for paths
    /// of outer variables.
    var enclosing: [Int: EnclosingScope] = [:]
    /// What V4's lambdas and `$count` need to read related tables under the caller's row filters
    /// (``RelatedTables``); without it (a grant's row filter, which has none) they read nothing.
    var related: RelatedTables?
    /// How the service's SQLite date columns store their values (``DateForms``, by database
    /// names): a date column in another form than Strata's is compared in its own form.
    let dateForms: DateForms

    init(dialect: SQLDialect, names: StorageNames, rootAlias: String, rootType: String, joinAliases: [[String]: String] = [:],
         dateForms: DateForms = DateForms()) {
        self.dialect = dialect
        self.names = names
        self.rootAlias = rootAlias
        self.rootType = rootType
        self.joinAliases = joinAliases
        self.dateForms = dateForms
    }

    // MARK: Conditions

    /// A condition for WHERE: where OData says false, the SQL may say NULL, which WHERE treats alike.
    func condition(_ expression: BoundExpression) -> SQLTerm {
        boolean(expression, exact: false)
    }

    /// A boolean expression. With `exact`, the SQL never yields NULL (needed under NOT and as a value).
    func boolean(_ expression: BoundExpression, exact: Bool) -> SQLTerm {
        switch expression.node {
        case .literal(.boolean(let b)):
            return b ? .template(["TRUE"]) : .template(["FALSE"])
        case .literal:
            return .template(["FALSE"])
        case .property:
            let column = scalar(expression, as: .boolean)
            guard exact, Nullability.canBeNull(expression) else { return column }
            return .template(["COALESCE(", .expression(column), ", FALSE)"])
        case .binary(.and, let lhs, let rhs, _):
            return .and([boolean(lhs, exact: exact), boolean(rhs, exact: exact)])
        case .binary(.or, let lhs, let rhs, _):
            return .or([boolean(lhs, exact: exact), boolean(rhs, exact: exact)])
        case .binary(let op, let lhs, let rhs, let operandType) where op.isComparison:
            return comparison(op, lhs, rhs, operandType: operandType, exact: exact)
        case .unary(.not, let operand):
            return .not(boolean(operand, exact: true))
        case .call:
            let call = scalar(expression, as: .boolean)
            guard exact, Nullability.canBeNull(expression) else { return call }
            return .template(["COALESCE(", .expression(call), ", FALSE)"])
        case .lambda(let lambda):
            return lambdaCondition(lambda)
        default:
            // Arithmetic never has Boolean type; the binder guarantees it.
            return .template(["FALSE"])
        }
    }

    private func comparison(_ op: BinaryOperator, _ lhs: BoundExpression, _ rhs: BoundExpression,
                            operandType: EDMPrimitiveType?, exact: Bool) -> SQLTerm {
        let lhsNull = lhs.isNullLiteral, rhsNull = rhs.isNullLiteral
        if lhsNull || rhsNull {
            // `x eq null` is IS NULL; `null eq null` is true; ordering against null is false.
            let other = lhsNull ? rhs : lhs
            let bothNull = lhsNull && rhsNull
            switch op {
            case .eq: return bothNull ? .template(["TRUE"]) : .isNull(scalar(other, as: operandType), negated: false)
            case .ne: return bothNull ? .template(["FALSE"]) : .isNull(scalar(other, as: operandType), negated: true)
            default: return .template(["FALSE"])
            }
        }
        if let dated = dateComparison(op, lhs, rhs, operandType: operandType, exact: exact) { return dated }
        var (left, right) = dateOperands(lhs, rhs, operandType: operandType)
            ?? (comparable(scalar(lhs, as: operandType), operandType), comparable(scalar(rhs, as: operandType), operandType))
        let nullable = (Nullability.canBeNull(lhs), Nullability.canBeNull(rhs))
        switch op {
        case .eq:
            if nullable == (false, false) || (!exact && !(nullable.0 && nullable.1)) {
                return .binary(.equal, left, right)
            }
            return nullSafeEqual(left, right, negated: false)
        case .ne:
            if nullable == (false, false) { return .binary(.notEqual, left, right) }
            return nullSafeEqual(left, right, negated: true)
        default:
            if operandType == .string {
                // Ordinal comparison whatever the database's collation.
                left = ordinal(left)
                right = ordinal(right)
            }
            let sqlOperator: SQLOperator
            switch op {
            case .gt: sqlOperator = .greater
            case .ge: sqlOperator = .greaterOrEqual
            case .lt: sqlOperator = .less
            default: sqlOperator = .lessOrEqual
            }
            let compared = SQLTerm.binary(sqlOperator, left, right)
            guard exact, nullable.0 || nullable.1 else { return compared }
            return .template(["COALESCE(", .expression(compared), ", FALSE)"])
        }
    }

    /// Equality where null equals null and differs from every value.
    private func nullSafeEqual(_ lhs: SQLTerm, _ rhs: SQLTerm, negated: Bool) -> SQLTerm {
        switch (dialect, negated) {
        case (.sqlite, false): return .template(["(", .expression(lhs), " IS ", .expression(rhs), ")"])
        case (.sqlite, true): return .template(["(", .expression(lhs), " IS NOT ", .expression(rhs), ")"])
        case (.postgres, false): return .template(["(", .expression(lhs), " IS NOT DISTINCT FROM ", .expression(rhs), ")"])
        case (.postgres, true): return .template(["(", .expression(lhs), " IS DISTINCT FROM ", .expression(rhs), ")"])
        }
    }

    /// A string expression compared byte by byte: SQLite's default; PostgreSQL needs the C collation.
    func ordinal(_ term: SQLTerm) -> SQLTerm {
        dialect == .postgres ? .template(["(", .expression(term), " COLLATE \"C\")"]) : term
    }

    /// A value in a form that compares and sorts as OData says. SQLite keeps date-times with offsets as
    /// text in the offset they were written in; normalized to UTC text they order as instants.
    func comparable(_ term: SQLTerm, _ type: EDMPrimitiveType?) -> SQLTerm {
        guard dialect == .sqlite, type == .dateTimeOffset else { return term }
        if case .null = term { return term }
        return .template(["strftime('%Y-%m-%d %H:%M:%f', ", .expression(term), ")"])
    }

    /// A `$orderby` key: ordinal for strings, instants for date-times with offset. On SQLite the latter
    /// sort as normalized UTC text, and their continuation tokens carry that text; a date column in
    /// another form than Strata's sorts by its stored text or number (``DateStorageForm/sortKey(_:)``).
    func sortKey(_ expression: BoundExpression, descending: Bool) -> SortKey {
        if let (column, form) = dateColumn(expression) {
            let key = form.sortKey(column)
            return SortKey(expression: key.expression, descending: descending, type: key.type,
                           canBeNull: Nullability.canBeNull(expression))
        }
        var type = expression.type
        var value = scalar(expression, as: type)
        if dialect == .sqlite && type == .dateTimeOffset {
            value = comparable(value, type)
            type = .string
        }
        return SortKey(expression: type == .string ? ordinal(value) : value, descending: descending, type: type,
                       canBeNull: Nullability.canBeNull(expression))
    }

    // MARK: Values

    /// An expression's value. Literals are converted to `type` (the operand type a comparison or
    /// arithmetic works in) before they are bound, so PostgreSQL sees parameters of the column's kind.
    func scalar(_ expression: BoundExpression, as type: EDMPrimitiveType? = nil) -> SQLTerm {
        // No known type means NULL by construction (`-null`, `null add null`): the keyword, since
        // PostgreSQL cannot pick an operator or function for unknown operands.
        if expression.type == nil {
            if case .literal = expression.node {} else {
                return type.map { FunctionTranslator(dialect: dialect).typedNull($0) } ?? .null
            }
        }
        switch expression.node {
        case .literal(let value):
            if value.isNull { return .null }
            let converted = type.flatMap { value.converted(to: $0) } ?? value
            return .value(converted)
        case .property(let path):
            if path.scope != scope, let outer = enclosing[path.scope] {
                let alias = path.navigation.isEmpty ? outer.alias : (outer.joinAliases[path.navigationNames] ?? outer.alias)
                let owner = path.navigation.last?.targetType.name ?? outer.typeName
                return .column(alias: alias, name: names.column(path.property.name, of: owner))
            }
            let alias = path.navigation.isEmpty ? rootAlias : (joinAliases[path.navigationNames] ?? rootAlias)
            let owner = path.navigation.last?.targetType.name ?? rootType
            return .column(alias: alias, name: names.column(path.property.name, of: owner))
        case .lambda:
            return boolean(expression, exact: true)
        case .count(let collection):
            return count(collection)
        case .binary(let op, let lhs, let rhs, let operandType):
            if op.isComparison || op == .and || op == .or {
                return boolean(expression, exact: true)
            }
            return arithmetic(op, scalar(lhs, as: operandType), scalar(rhs, as: operandType), type: operandType ?? expression.type)
        case .unary(.not, _):
            return boolean(expression, exact: true)
        case .unary(.negate, let operand):
            let value = scalar(operand, as: expression.type)
            guard expression.type?.isIntegral == true else { return .template(["(- ", .expression(value), ")"]) }
            // 64-bit and checked on both databases (see `SQLiteCheckedArithmetic`).
            return dialect == .sqlite ? .template(["strata_neg(", .expression(value), ")"])
                : .template(["(- CAST(", .expression(value), " AS bigint))"])
        case .call(let function, let arguments):
            return FunctionTranslator(dialect: dialect).call(function, arguments.map(argument),
                                                            argumentTypes: arguments.map(\.type), resultType: expression.type)
        case .cast(let operand):
            return FunctionTranslator(dialect: dialect).cast(scalar(operand, as: operand.type), from: operand.type, to: expression.type)
        }
    }

    private func arithmetic(_ op: BinaryOperator, _ lhs: SQLTerm, _ rhs: SQLTerm, type: EDMPrimitiveType?) -> SQLTerm {
        let integral = type?.isIntegral ?? false
        if integral, let checked = checkedIntegerArithmetic(op, lhs, rhs) { return checked }
        switch op {
        case .add: return .binary(.add, lhs, rhs)
        case .sub: return .binary(.subtract, lhs, rhs)
        case .mul: return .binary(.multiply, lhs, rhs)
        case .div:
            if integral || dialect == .postgres {
                // Integers truncate on both databases; PostgreSQL's numeric and double division are exact.
                return .template(["(", .expression(lhs), " / NULLIF(", .expression(rhs), ", 0))"])
            }
            // SQLite may hold a decimal as an integer (35.00 as 35): force real division.
            return .template(["(CAST(", .expression(lhs), " AS REAL) / NULLIF(", .expression(rhs), ", 0))"])
        case .mod:
            if integral {
                return .template(["(", .expression(lhs), " % NULLIF(", .expression(rhs), ", 0))"])
            }
            if dialect == .postgres {
                let remainder = SQLTerm.template(["(CAST(", .expression(lhs), " AS numeric) % NULLIF(CAST(", .expression(rhs), " AS numeric), 0))"])
                return type == .decimal ? remainder : .template(["CAST(", .expression(remainder), " AS double precision)"])
            }
            // SQLite's % works on integers only: a - b * trunc(a / b).
            return .template(["(", .expression(lhs), " - ", .expression(rhs), " * CAST(CAST(", .expression(lhs),
                              " AS REAL) / NULLIF(", .expression(rhs), ", 0) AS INTEGER))"])
        default:
            return .null
        }
    }
}

extension FilterTranslator {
    /// Integer `add`, `sub`, `mul` and `div` in 64 bits, failing on overflow, on both databases
    /// (``FunctionTable/checkedArithmetic(_:_:_:)``). Nil for `mod`, which cannot overflow past what it divides.
    func checkedIntegerArithmetic(_ op: BinaryOperator, _ lhs: SQLTerm, _ rhs: SQLTerm) -> SQLTerm? {
        let operation: FunctionTable.IntegerOperation
        switch op {
        case .add: operation = .add
        case .sub: operation = .subtract
        case .mul: operation = .multiply
        case .div: operation = .divide
        default: return nil
        }
        let bigint: (SQLTerm) -> SQLTerm = { [dialect] term in
            dialect == .postgres ? .template(["CAST(", .expression(term), " AS bigint)"]) : term
        }
        return FunctionTable(dialect: dialect).checkedArithmetic(operation, bigint(lhs), bigint(rhs))
    }
}

extension BinaryOperator {
    var isComparison: Bool {
        switch self {
        case .eq, .ne, .gt, .ge, .lt, .le: return true
        default: return false
        }
    }
}

extension BoundExpression {
    var isNullLiteral: Bool {
        if case .literal(let value) = node { return value.isNull }
        return false
    }
}
