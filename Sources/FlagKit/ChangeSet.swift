/// What a change (a schedule or a change request, `docs/governance.md`) sets in an environment's document:
/// for each flag and each cohort whose definition differs between the document it was made against (the
/// **base**) and the **proposed** one, the new definition as JSON, or `null` for a removal.
///
/// A change set is applied to the document that is current when it runs, not to its base, so versions
/// published in between are kept; `conflicts(base:current:)` finds the items someone changed meanwhile.
public struct ChangeSet: Sendable, Equatable {
    /// Flag key to its new definition (as `Flag.jsonValue` writes it), or `.null` for a removal.
    public private(set) var flags: [String: JSONValue]
    /// Cohort name to its new condition (as `Condition.jsonValue` writes it), or `.null` for a removal.
    public private(set) var cohorts: [String: JSONValue]

    /// A change set of the given items, unchecked: `apply(to:)` validates what results. Definitions should be
    /// in the form `Flag.jsonValue` / `Condition.jsonValue` give, so that "already equal" is recognized.
    public init(flags: [String: JSONValue] = [:], cohorts: [String: JSONValue] = [:]) {
        self.flags = flags
        self.cohorts = cohorts
    }

    /// The items whose definitions differ from `base` to `proposed`: added and changed ones with their
    /// definition in `proposed`, removed ones as `.null`.
    public init(base: FlagDocument, proposed: FlagDocument) {
        var flags: [String: JSONValue] = [:]
        for (key, flag) in proposed.flags where base.flags[key] != flag { flags[key] = flag.jsonValue }
        for key in base.flags.keys where proposed.flags[key] == nil { flags[key] = .null }
        var cohorts: [String: JSONValue] = [:]
        for (name, condition) in proposed.cohorts where base.cohorts[name] != condition { cohorts[name] = condition.jsonValue }
        for name in base.cohorts.keys where proposed.cohorts[name] == nil { cohorts[name] = .null }
        self.init(flags: flags, cohorts: cohorts)
    }

    /// True when the change set sets nothing (the proposal equals its base: `409 empty_change`).
    public var isEmpty: Bool { flags.isEmpty && cohorts.isEmpty }

    /// Every item, cohorts first, each group in UTF-8 order of its name (the order of `conflicts` and listings).
    public var items: [Item] {
        cohorts.keys.sorted(by: JSONValue.utf8Order).map { Item(kind: .cohort, name: $0) }
            + flags.keys.sorted(by: JSONValue.utf8Order).map { Item(kind: .flag, name: $0) }
    }

    /// The keys of the flags this change set adds, changes or removes, in UTF-8 order.
    public var flagKeys: [String] { flags.keys.sorted(by: JSONValue.utf8Order) }

    /// The names of the cohorts this change set adds, changes or removes, in UTF-8 order.
    public var cohortNames: [String] { cohorts.keys.sorted(by: JSONValue.utf8Order) }

    /// The new definition of `item`: nil when the change set removes it or does not name it.
    public func proposedDefinition(of item: Item) -> JSONValue? {
        switch item.kind == .flag ? flags[item.name] : cohorts[item.name] {
        case nil, .null?: return nil
        case let definition?: return definition
        }
    }

    /// The items that conflict: `current`'s definition differs from `base`'s (someone changed it since the
    /// change was made) AND from the proposed one (so applying would overwrite that decision). An item that
    /// is already as proposed is no conflict: nothing would be overwritten.
    public func conflicts(base: FlagDocument, current: FlagDocument) -> [Item] {
        items.filter { item in
            let now = item.definition(in: current)
            return now != item.definition(in: base) && now != proposedDefinition(of: item)
        }
    }

    /// `current` with every item of this change set set (or removed), validated as a whole.
    ///
    /// Throws `.invalid` with every issue of the result and its JSON path, e.g. a rule that names a cohort
    /// that was removed since the change was made (`/flags/x/rules/0/cohort: unknown cohort "beta"`).
    public func apply(to current: FlagDocument) throws(FlagDocumentError) -> FlagDocument {
        // `removeValue`, not `= nil`: JSONValue is ExpressibleByNilLiteral, so `nil` there would store `.null`.
        var flagDefinitions = current.flags.mapValues(\.jsonValue)
        for (key, definition) in flags {
            if definition == .null { flagDefinitions.removeValue(forKey: key) } else { flagDefinitions[key] = definition }
        }
        var cohortDefinitions = current.cohorts.mapValues(\.jsonValue)
        for (name, definition) in cohorts {
            if definition == .null { cohortDefinitions.removeValue(forKey: name) } else { cohortDefinitions[name] = definition }
        }
        var root: [String: JSONValue] = ["flags": .object(flagDefinitions)]
        if !cohortDefinitions.isEmpty { root["cohorts"] = .object(cohortDefinitions) }
        return try FlagDocument(validating: .object(root))
    }

    /// Whether an item is a flag or a cohort; the raw value is its member of the document (`flags`, `cohorts`).
    public enum ItemKind: String, Sendable, Hashable, CaseIterable {
        /// A flag, under `/flags`.
        case flag = "flags"
        /// A cohort, under `/cohorts`.
        case cohort = "cohorts"
    }

    /// One flag or cohort of a change set, named by its JSON pointer in the document (`/flags/<key>`,
    /// `/cohorts/<name>`, RFC 6901-escaped): the name a change's `conflicts` list stores and shows.
    public struct Item: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// Flag or cohort.
        public let kind: ItemKind
        /// The flag's key or the cohort's name.
        public let name: String

        /// An item of the given kind.
        public init(kind: ItemKind, name: String) {
            self.kind = kind
            self.name = name
        }

        /// Reads a pointer `pointer` gives back (`/flags/a~1b` is the flag `a/b`); nil for anything else.
        public init?(pointer: String) {
            let parts = pointer.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0].isEmpty, let kind = ItemKind(rawValue: String(parts[1])),
                  !parts[2].isEmpty, !parts[2].utf8.contains(UInt8(ascii: "/")) else { return nil }
            guard let name = JSONPath.unescape(String(parts[2])) else { return nil }
            self.init(kind: kind, name: name)
        }

        /// `/flags/checkoutEnabled`.
        public var pointer: String { JSONPath.pointer([kind.rawValue, name]) }

        /// The pointer.
        public var description: String { pointer }

        /// The item's definition in `document` as JSON, nil when the document has no such item.
        public func definition(in document: FlagDocument) -> JSONValue? {
            switch kind {
            case .flag: document.flags[name]?.jsonValue
            case .cohort: document.cohorts[name]?.jsonValue
            }
        }

        /// Cohorts before flags, then by UTF-8 order of the name.
        public static func < (lhs: Item, rhs: Item) -> Bool {
            lhs.kind != rhs.kind ? lhs.kind == .cohort : JSONValue.utf8Order(lhs.name, rhs.name)
        }
    }
}
