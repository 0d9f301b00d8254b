/// A cohort definition: a condition on the evaluation context.
///
/// In JSON a condition is an object whose members must all hold. A member is either an attribute
/// name mapped to operators (`"appVersion": {"gte": "2.4.0"}`), or one of the combinators
/// `all` (array of conditions), `any` (array of conditions), `not` (a condition), `cohort`
/// (the name of another cohort). These four names are therefore not usable as attribute names.
/// The model mirrors the JSON one to one, so decoding and encoding round-trip exactly.
public struct Condition: Sendable, Equatable {
    /// The members, sorted by their JSON key; all must hold (none: the condition holds for everyone).
    public let members: [ConditionMember]

    /// A condition of the given members (sorted by key; keys are unique as in a JSON object).
    public init(members: [ConditionMember]) {
        self.members = members.sorted { JSONValue.utf8Order($0.key, $1.key) }
    }

    /// Names of other cohorts this condition refers to, directly or nested.
    public var referencedCohorts: [String] { members.flatMap(\.referencedCohorts) }
}

/// One member of a condition object.
public enum ConditionMember: Sendable, Equatable {
    /// Every operator holds for the named attribute.
    case attribute(String, [Predicate])
    /// Every condition holds (an empty list holds).
    case all([Condition])
    /// At least one condition holds (an empty list does not).
    case any([Condition])
    /// The condition does not hold.
    case not(Condition)
    /// The named cohort's condition holds.
    case cohort(String)

    /// The member's key in the JSON object.
    public var key: String {
        switch self {
        case .attribute(let name, _): name
        case .all: "all"
        case .any: "any"
        case .not: "not"
        case .cohort: "cohort"
        }
    }

    /// Names of other cohorts referred to, directly or nested.
    public var referencedCohorts: [String] {
        switch self {
        case .all(let conditions), .any(let conditions): conditions.flatMap(\.referencedCohorts)
        case .not(let condition): condition.referencedCohorts
        case .cohort(let name): [name]
        case .attribute: []
        }
    }
}

/// One operator with its operand, applied to one attribute.
public struct Predicate: Sendable, Equatable {
    /// The operator.
    public let op: Operator
    /// The operand as written in the document.
    public let operand: JSONValue
    /// The operand parsed as semantic versions, for version attributes (empty otherwise), so that
    /// evaluation does not parse them again for every install.
    let versions: [SemanticVersion]
    /// The operand of `before`/`after` as milliseconds since 1970 (nil for other operators), parsed once.
    let instant: Int64?

    /// A predicate; `versions` holds the parsed operand(s) when the attribute is compared as a version,
    /// `instant` the parsed operand of `before`/`after`.
    init(op: Operator, operand: JSONValue, versions: [SemanticVersion] = [], instant: Int64? = nil) {
        self.op = op
        self.operand = operand
        self.versions = versions
        self.instant = instant
    }

    /// Equality on what was written (the parsed versions follow from it).
    public static func == (lhs: Predicate, rhs: Predicate) -> Bool { lhs.op == rhs.op && lhs.operand == rhs.operand }
}

/// The operators a cohort condition can use on an attribute.
public enum Operator: String, Sendable, CaseIterable {
    /// Equal (versions by SemVer precedence, numbers numerically).
    case eq
    /// Present and not equal.
    case ne
    /// Equal to one element of an array operand.
    case `in`
    /// Present and equal to no element of an array operand.
    case notIn
    /// String prefix.
    case startsWith
    /// String suffix.
    case endsWith
    /// Substring.
    case contains
    /// Greater than (versions, numbers, or strings by UTF-8 order).
    case gt
    /// Greater than or equal.
    case gte
    /// Less than.
    case lt
    /// Less than or equal.
    case lte
    /// `true`: the attribute is present; `false`: it is absent.
    case exists
    /// The attribute is an RFC 3339 instant strictly earlier than the operand (an RFC 3339 instant), to the millisecond.
    case before
    /// The attribute is an RFC 3339 instant strictly later than the operand, to the millisecond.
    case after

    /// The operators that compare instants.
    public var isInstant: Bool { self == .before || self == .after }
}

/// Attributes compared as semantic versions rather than as strings.
public enum VersionAttributes {
    /// `appVersion` and `osVersion` (``BuiltInAttribute/isVersion``).
    public static let names: Set<String> = Set(BuiltInAttribute.allCases.filter(\.isVersion).map(\.rawValue))
}
