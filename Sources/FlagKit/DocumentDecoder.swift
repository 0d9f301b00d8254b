/// Turns JSON into a `FlagDocument`, collecting every problem with its JSON path instead of stopping
/// at the first, so an operator fixes a document in one round.
struct DocumentDecoder {
    private(set) var issues: [ValidationIssue] = []
    /// Names under `/cohorts`, known before any reference to them is decoded.
    var declaredCohorts: Set<String> = []

    /// Flag keys and cohort names: safe in URLs, file names and metrics labels.
    static func isValidKey(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.count <= 128 && key.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default:
                false
            }
        }
    }

    mutating func report(_ path: String, _ message: String) {
        issues.append(ValidationIssue(path: path, message: message))
    }

    /// Reports members of `object` not in `allowed`.
    mutating func checkKeys(_ object: [String: JSONValue], allowed: Set<String>, at path: String) {
        for key in object.keys.sorted(by: JSONValue.utf8Order) where !allowed.contains(key) {
            let expected = allowed.sorted().joined(separator: ", ")
            report(JSONPath.appending(path, key), "unknown key (expected one of: \(expected))")
        }
    }

    mutating func decodeDocument(_ root: JSONValue) -> FlagDocument? {
        guard case .object(let members) = root else {
            report("", "must be an object with \"flags\" and optional \"cohorts\" (got \(root.typeName))")
            return nil
        }
        checkKeys(members, allowed: ["flags", "cohorts"], at: "")
        declaredCohorts = Set(members["cohorts"]?.objectValue.map { Array($0.keys) } ?? [])
        var cohorts: [String: Condition] = [:]
        switch members["cohorts"] {
        case nil: break
        case .object(let definitions)?:
            for name in definitions.keys.sorted(by: JSONValue.utf8Order) {
                let path = JSONPath.appending("/cohorts", name)
                if !Self.isValidKey(name) { report(path, "cohort name must be 1-128 characters of A-Z a-z 0-9 . _ -") }
                if let condition = decodeCondition(definitions[name, default: .null], at: path) { cohorts[name] = condition }
            }
        case let other?:
            report("/cohorts", "must be an object of cohort definitions (got \(other.typeName))")
        }
        var flags: [String: Flag] = [:]
        switch members["flags"] {
        case nil:
            report("/flags", "is required")
        case .object(let definitions)?:
            for key in definitions.keys.sorted(by: JSONValue.utf8Order) {
                let path = JSONPath.appending("/flags", key)
                if !Self.isValidKey(key) { report(path, "flag key must be 1-128 characters of A-Z a-z 0-9 . _ -") }
                if let flag = decodeFlag(definitions[key, default: .null], at: path) {
                    flags[key] = flag
                }
            }
        case let other?:
            report("/flags", "must be an object of flag definitions (got \(other.typeName))")
        }
        checkCohortGraph(cohorts)
        checkPrerequisites(flags)
        return issues.isEmpty ? FlagDocument(uncheckedFlags: flags, cohorts: cohorts) : nil
    }

    private mutating func decodeFlag(_ value: JSONValue, at path: String) -> Flag? {
        guard case .object(let members) = value else {
            report(path, "must be an object with \"type\" and \"default\" (got \(value.typeName))")
            return nil
        }
        checkKeys(members, allowed: ["type", "description", "default", "rules", "requires", "salt"], at: path)
        var type: FlagType?
        switch members["type"] {
        case nil: report(path + "/type", "is required (one of: boolean, string, integer, number, json)")
        case .string(let name)?:
            type = FlagType(rawValue: name)
            if type == nil { report(path + "/type", "unknown type \"\(name)\" (expected one of: boolean, string, integer, number, json)") }
        case let other?: report(path + "/type", "must be a string (got \(other.typeName))")
        }
        var description: String?
        if let raw = members["description"] {
            description = raw.stringValue
            if description == nil { report(path + "/description", "must be a string (got \(raw.typeName))") }
        }
        var salt: String?
        if let raw = members["salt"] {
            salt = raw.stringValue
            if salt?.isEmpty ?? true { report(path + "/salt", "must be a non-empty string (got \(raw))") }
        }
        let defaultValue = members["default"]
        if defaultValue == nil { report(path + "/default", "is required") }
        if let type, let defaultValue { checkType(defaultValue, type, at: path + "/default") }
        var rules: [Rule] = []
        switch members["rules"] {
        case nil: break
        case .array(let elements)?:
            for (index, element) in elements.enumerated() {
                if let rule = decodeRule(element, at: "\(path)/rules/\(index)", type: type) {
                    rules.append(rule)
                }
            }
        case let other?: report(path + "/rules", "must be an array of rules (got \(other.typeName))")
        }
        var requires: [String: JSONValue] = [:]
        switch members["requires"] {
        case nil: break
        case .object(let prerequisites)?: requires = prerequisites
        case let other?: report(path + "/requires", "must be an object of flag keys and required values (got \(other.typeName))")
        }
        guard let type, let defaultValue else { return nil }
        return Flag(type: type, description: description, defaultValue: defaultValue, rules: rules, requires: requires, salt: salt)
    }

    private mutating func decodeRule(_ value: JSONValue, at path: String, type: FlagType?) -> Rule? {
        guard case .object(let members) = value else {
            report(path, "must be an object with \"value\" and optional \"cohort\" and \"rollout\" (got \(value.typeName))")
            return nil
        }
        checkKeys(members, allowed: ["cohort", "value", "rollout"], at: path)
        var cohort: String?
        if let raw = members["cohort"] {
            if case .string(let name) = raw {
                cohort = name
                if !declaredCohorts.contains(name) { report(path + "/cohort", "unknown cohort \"\(name)\"") }
            } else {
                report(path + "/cohort", "must be the name of a cohort (got \(raw.typeName))")
            }
        }
        var rollout: Rollout?
        if let raw = members["rollout"] {
            if let percent = raw.doubleValue {
                rollout = Rollout(percent: percent)
                if rollout == nil {
                    if percent < 0 || percent > 100 {
                        report(path + "/rollout", "must be between 0 and 100 (got \(raw))")
                    } else {
                        report(path + "/rollout", "must have at most 3 decimals (got \(raw))")
                    }
                }
            } else {
                report(path + "/rollout", "must be a number between 0 and 100 (got \(raw.typeName))")
            }
        }
        guard let ruleValue = members["value"] else {
            report(path + "/value", "is required")
            return nil
        }
        if let type { checkType(ruleValue, type, at: path + "/value") }
        return Rule(cohort: cohort, value: ruleValue, rollout: rollout)
    }

    mutating func checkType(_ value: JSONValue, _ type: FlagType, at path: String) {
        guard !type.accepts(value) else { return }
        report(path, "must be of the flag's type \(type.rawValue) (got \(value.typeName) \(value))")
    }

    private mutating func checkCohortGraph(_ cohorts: [String: Condition]) {
        for cycle in ReferenceGraph.cycles(nodes: cohorts.keys, edges: { cohorts[$0]?.referencedCohorts ?? [] }) {
            report(JSONPath.appending("/cohorts", cycle.from), "cohort reference cycle: \(cycle.path.joined(separator: " -> "))")
        }
    }

    private mutating func checkPrerequisites(_ flags: [String: Flag]) {
        for key in flags.keys.sorted(by: JSONValue.utf8Order) {
            guard let flag = flags[key] else { continue }
            for required in flag.requires.keys.sorted(by: JSONValue.utf8Order) {
                let path = JSONPath.appending("/flags", key, "requires", required)
                guard let prerequisite = flags[required] else {
                    report(path, "unknown flag \"\(required)\"")
                    continue
                }
                checkType(flag.requires[required, default: .null], prerequisite.type, at: path)
            }
        }
        let edges: (String) -> [String] = { key in flags[key]?.requires.keys.sorted(by: JSONValue.utf8Order) ?? [] }
        for cycle in ReferenceGraph.cycles(nodes: flags.keys, edges: edges) {
            report(JSONPath.appending("/flags", cycle.from, "requires"), "prerequisite cycle: \(cycle.path.joined(separator: " -> "))")
        }
    }
}

/// Cycle search over named references (cohorts referring to cohorts, flags requiring flags).
enum ReferenceGraph {
    /// A cycle found: the node whose reference closes it, and the path `a -> b -> a`.
    struct Cycle: Equatable {
        let from: String
        let path: [String]
    }

    /// Every back edge found by a depth-first search in sorted order, so the report is deterministic.
    /// References to unknown nodes are ignored here (reported elsewhere).
    static func cycles<Nodes: Sequence>(nodes: Nodes, edges: (String) -> [String]) -> [Cycle] where Nodes.Element == String {
        let known = Set(nodes)
        var finished: Set<String> = []
        var onPath: [String] = []
        var found: [Cycle] = []
        func visit(_ node: String) {
            onPath.append(node)
            for next in edges(node) where known.contains(next) {
                if let start = onPath.firstIndex(of: next) {
                    found.append(Cycle(from: node, path: Array(onPath[start...]) + [next]))
                } else if !finished.contains(next) {
                    visit(next)
                }
            }
            onPath.removeLast()
            finished.insert(node)
        }
        for node in known.sorted(by: JSONValue.utf8Order) where !finished.contains(node) { visit(node) }
        return found
    }
}
