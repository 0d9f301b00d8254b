/// Decoding of cohort conditions: combinators, attributes and operator operands.
extension DocumentDecoder {
    mutating func decodeCondition(_ value: JSONValue, at path: String) -> Condition? {
        guard case .object(let entries) = value else {
            report(path, "must be an object of conditions (got \(value.typeName))")
            return nil
        }
        var members: [ConditionMember] = []
        var failed = false
        for key in entries.keys.sorted(by: JSONValue.utf8Order) {
            let memberPath = JSONPath.appending(path, key)
            let entry = entries[key, default: .null]
            if let member = decodeMember(key: key, entry, at: memberPath) { members.append(member) } else { failed = true }
        }
        return failed ? nil : Condition(members: members)
    }

    private mutating func decodeMember(key: String, _ entry: JSONValue, at path: String) -> ConditionMember? {
        switch key {
        case "all", "any":
            guard case .array(let elements) = entry else {
                report(path, "must be an array of conditions (got \(entry.typeName))")
                return nil
            }
            var conditions: [Condition] = []
            for (index, element) in elements.enumerated() {
                if let condition = decodeCondition(element, at: "\(path)/\(index)") { conditions.append(condition) }
            }
            guard conditions.count == elements.count else { return nil }
            return key == "all" ? .all(conditions) : .any(conditions)
        case "not":
            return decodeCondition(entry, at: path).map(ConditionMember.not)
        case "cohort":
            guard case .string(let name) = entry else {
                report(path, "must be the name of a cohort (got \(entry.typeName))")
                return nil
            }
            guard declaredCohorts.contains(name) else {
                report(path, "unknown cohort \"\(name)\"")
                return nil
            }
            return .cohort(name)
        default:
            return decodeAttribute(key, entry, at: path)
        }
    }

    private mutating func decodeAttribute(_ name: String, _ entry: JSONValue, at path: String) -> ConditionMember? {
        guard case .object(let operators) = entry, !operators.isEmpty else {
            report(path, "must be an object of operators such as {\"eq\": ...} (got \(entry))")
            return nil
        }
        var predicates: [Predicate] = []
        var failed = false
        for opName in operators.keys.sorted(by: JSONValue.utf8Order) {
            let operand = operators[opName, default: .null]
            let opPath = JSONPath.appending(path, opName)
            guard let op = Operator(rawValue: opName) else {
                let known = Operator.allCases.map(\.rawValue).joined(separator: ", ")
                report(opPath, "unknown operator (expected one of: \(known))")
                failed = true
                continue
            }
            if let predicate = decodePredicate(op, operand, attribute: name, at: opPath) {
                predicates.append(predicate)
            } else {
                failed = true
            }
        }
        return failed ? nil : .attribute(name, predicates)
    }

    private mutating func decodePredicate(_ op: Operator, _ operand: JSONValue, attribute: String, at path: String) -> Predicate? {
        let isVersion = VersionAttributes.names.contains(attribute)
        if BuiltInAttribute(rawValue: attribute)?.isInstant == true, !op.isInstant, op != .exists {
            report(path, "\(attribute) is an instant: compare it with before, after or exists (\(op.rawValue) would compare text)")
            return nil
        }
        switch op {
        case .before, .after:
            if isVersion {
                report(path, "\(attribute) is compared as a semantic version: use lt or gt (before and after take RFC 3339 instants)")
                return nil
            }
            guard case .string(let text) = operand else { return refuse(path, "must be an RFC 3339 date-time string", operand) }
            do {
                return Predicate(op: op, operand: operand, instant: try RFC3339.milliseconds(parsing: text, path: path))
            } catch {
                for issue in error.issues { report(issue.path, issue.message) }
                return nil
            }
        case .exists:
            guard case .bool = operand else { return refuse(path, "must be true or false", operand) }
            return Predicate(op: op, operand: operand)
        case .startsWith, .endsWith, .contains:
            guard case .string = operand else { return refuse(path, "must be a string", operand) }
            return Predicate(op: op, operand: operand)
        case .in, .notIn:
            guard case .array(let elements) = operand else { return refuse(path, "must be an array", operand) }
            var versions: [SemanticVersion] = []
            for (index, element) in elements.enumerated() {
                guard let scalarOK = checkScalar(element, isVersion: isVersion, at: "\(path)/\(index)") else { return nil }
                if let version = scalarOK { versions.append(version) }
            }
            return Predicate(op: op, operand: operand, versions: versions)
        case .eq, .ne, .gt, .gte, .lt, .lte:
            if [.gt, .gte, .lt, .lte].contains(op), case .bool = operand {
                return refuse(path, "must be a number or a string", operand)
            }
            guard let scalarOK = checkScalar(operand, isVersion: isVersion, at: path) else { return nil }
            return Predicate(op: op, operand: operand, versions: scalarOK.map { [$0] } ?? [])
        }
    }

    /// Checks an operand element: a string, number or boolean; for version attributes a valid
    /// semantic version. Returns nil when refused, `.some(nil)` for a plain scalar, `.some(v)` for a version.
    private mutating func checkScalar(_ value: JSONValue, isVersion: Bool, at path: String) -> SemanticVersion?? {
        if isVersion {
            guard case .string(let text) = value else { return refuse(path, "must be a semantic version string", value) }
            guard let version = SemanticVersion(text) else {
                report(path, "invalid semantic version \"\(text)\" (expected MAJOR[.MINOR[.PATCH]][-PRERELEASE][+BUILD])")
                return nil
            }
            return .some(version)
        }
        switch value {
        case .string, .integer, .number, .bool: return .some(nil)
        default: return refuse(path, "must be a string, number or boolean", value)
        }
    }

    private mutating func refuse<T>(_ path: String, _ message: String, _ value: JSONValue) -> T? {
        report(path, "\(message) (got \(value.typeName) \(value))")
        return nil
    }
}
