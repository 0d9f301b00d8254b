/// The attributes every evaluation context has by name: the one table that the context, cohort validation,
/// OFREP's context scanner, `flagctl eval` and the app's `AppContext` read, so a new attribute is added here once.
///
/// Built-ins are strings; `appVersion` and `osVersion` compare as semantic versions, `firstInstallDate` as an
/// RFC 3339 instant (only `before`, `after` and `exists` apply to it). OpenFeature's
/// `targetingKey` (``targetingKeyName``) is another name for `installId`.
public enum BuiltInAttribute: String, CaseIterable, Sendable {
    /// The stable random id of the install: the targeting key, the unit of rollouts.
    case installId
    /// The app's version (`2.4.1`).
    case appVersion
    /// The OS version (`17.4`).
    case osVersion
    /// `ios`, `ipados`, `macos`, ...
    case platform
    /// A BCP 47 locale (`de-DE`, `en_US`).
    case locale
    /// ISO 3166 country code.
    case country
    /// `appstore`, `testflight` or `debug`.
    case channel
    /// When the install was first downloaded, as an RFC 3339 date-time (`2026-11-20T08:15:00Z`): the verified
    /// `AppTransaction`'s date, supplied by the app; absent when the app could not read or verify it.
    case firstInstallDate

    /// OpenFeature's name for ``installId`` (OFREP contexts, `flagctl eval --context targetingKey=...`).
    public static let targetingKeyName = "targetingKey"

    /// Whether conditions compare this attribute as a semantic version (`gte`, `lt`, ... on `2.4.0`).
    public var isVersion: Bool { self == .appVersion || self == .osVersion }

    /// Whether conditions compare this attribute as an instant (`before`/`after` an RFC 3339 date-time). An
    /// instant attribute whose text does not parse is unknown: absent for every operator, `exists` included.
    public var isInstant: Bool { self == .firstInstallDate }

    /// The context field that holds this attribute. Evaluation and the scanners use the switch-based
    /// `EvaluationContext[builtIn:]` instead: applying a key path costs far more than a field access.
    public var keyPath: WritableKeyPath<EvaluationContext, String?> {
        switch self {
        case .installId: \.installId
        case .appVersion: \.appVersion
        case .osVersion: \.osVersion
        case .platform: \.platform
        case .locale: \.locale
        case .country: \.country
        case .channel: \.channel
        case .firstInstallDate: \.firstInstallDate
        }
    }

    /// Why `value` cannot be this attribute's value where a context comes in (OFREP, `flagctl`, the console), nil
    /// when it can: every built-in is a string, an instant one a valid RFC 3339 date-time with an offset.
    /// (Evaluation itself never fails on a bad value: an unparsable instant is unknown.)
    public func problem(with value: JSONValue) -> String? {
        guard case .string(let text) = value else { return "must be a string, not \(value.typeName)" }
        guard isInstant else { return nil }
        do {
            _ = try RFC3339.milliseconds(parsing: text)
            return nil
        } catch {
            return error.issues.first?.message ?? "must be an RFC 3339 date-time (got \"\(text)\")"
        }
    }

    /// The attribute named `name`, accepting ``targetingKeyName`` for ``installId``.
    public init?(named name: String) {
        if name == Self.targetingKeyName { self = .installId; return }
        self.init(rawValue: name)
    }

    /// The built-in named by these UTF-8 bytes (not ``targetingKeyName``), for scanners that read names in place
    /// without making a String first.
    public static func named(utf8 name: UnsafeBufferPointer<UInt8>) -> BuiltInAttribute? {
        guard name.count < namesByLength.count else { return nil }
        for (attribute, bytes) in namesByLength[name.count] where bytes.elementsEqual(name) { return attribute }
        return nil
    }

    /// The names' bytes grouped by length, so a lookup compares at most two names.
    private static let namesByLength: [[(BuiltInAttribute, [UInt8])]] = {
        var table = [[(BuiltInAttribute, [UInt8])]](repeating: [], count: (allCases.map(\.rawValue.utf8.count).max() ?? 0) + 1)
        for attribute in allCases { table[attribute.rawValue.utf8.count].append((attribute, Array(attribute.rawValue.utf8))) }
        return table
    }()
}
