/// What is known about the install a flag is evaluated for.
public struct EvaluationContext: Sendable, Equatable {
    /// The stable random id of the install: the targeting key, the unit of rollouts.
    public var installId: String?
    /// The app's version (`2.4.1`), compared as a semantic version.
    public var appVersion: String? { didSet { parsedAppVersion = appVersion.flatMap { SemanticVersion($0) } } }
    /// The OS version (`17.4`), compared as a semantic version.
    public var osVersion: String? { didSet { parsedOSVersion = osVersion.flatMap { SemanticVersion($0) } } }
    /// `appVersion` parsed once, not at every comparison of every evaluation.
    private(set) var parsedAppVersion: SemanticVersion?
    /// `osVersion` parsed once.
    private(set) var parsedOSVersion: SemanticVersion?
    /// `ios`, `ipados`, `macos`, ...
    public var platform: String?
    /// A BCP 47 locale (`de-DE`, `en_US`).
    public var locale: String?
    /// ISO 3166 country code.
    public var country: String?
    /// `appstore`, `testflight` or `debug`.
    public var channel: String?
    /// When the install was first downloaded (the verified `AppTransaction`), an RFC 3339 date-time; nil when
    /// unknown. Text that is not a valid RFC 3339 date-time counts as unknown (``attribute(_:)`` gives nil).
    public var firstInstallDate: String? {
        didSet { firstInstallMilliseconds = firstInstallDate.flatMap(Self.instant(parsing:)) }
    }
    /// `firstInstallDate` in milliseconds since 1970, parsed once; nil when absent or unparsable.
    public private(set) var firstInstallMilliseconds: Int64?
    /// Any further attributes by name.
    public var custom: [String: JSONValue] { didSet { customInstants = Self.instants(in: custom) } }
    /// The custom attributes that are RFC 3339 date-times, in milliseconds since 1970: parsed once per context (here),
    /// not once per `before`/`after` predicate of every flag evaluated for it. A list, not a dictionary: a context
    /// has a date or two, and comparing names costs less than hashing one (and growing a table per context).
    private(set) var customInstants: [CustomInstant]

    /// A custom attribute's value as an instant.
    struct CustomInstant: Sendable, Equatable {
        let name: String
        let milliseconds: Int64
    }

    /// The names of the built-in attributes (``BuiltInAttribute``).
    public static let builtInAttributes: [String] = BuiltInAttribute.allCases.map(\.rawValue)

    /// A context with the given attributes.
    public init(installId: String? = nil, appVersion: String? = nil, osVersion: String? = nil, platform: String? = nil,
                locale: String? = nil, country: String? = nil, channel: String? = nil, firstInstallDate: String? = nil,
                custom: [String: JSONValue] = [:]) {
        self.installId = installId
        self.appVersion = appVersion
        self.osVersion = osVersion
        self.parsedAppVersion = appVersion.flatMap { SemanticVersion($0) }
        self.parsedOSVersion = osVersion.flatMap { SemanticVersion($0) }
        self.platform = platform
        self.locale = locale
        self.country = country
        self.channel = channel
        self.firstInstallDate = firstInstallDate
        self.firstInstallMilliseconds = firstInstallDate.flatMap(Self.instant(parsing:))
        self.custom = custom
        self.customInstants = Self.instants(in: custom)
    }

    /// A context from flat attributes (OFREP contexts, `flagctl eval --context k=v`):
    /// built-in names fill their fields when they are strings, everything else is custom.
    /// `targetingKey` (OpenFeature's name) is accepted for `installId`.
    public init(attributes: [String: JSONValue]) {
        self.init()
        var custom: [String: JSONValue] = [:]
        for (name, value) in attributes {
            if case .string(let text) = value, let builtIn = BuiltInAttribute(named: name) {
                self[builtIn: builtIn] = text
                continue
            }
            custom[name] = value
        }
        // Set once, with its instants: an initializer's own assignment does not run `custom`'s didSet.
        self.custom = custom
        self.customInstants = Self.instants(in: custom)
    }

    /// A version attribute parsed as a semantic version (nil when absent or unparsable).
    func version(of name: String) -> SemanticVersion? {
        switch name {
        case "appVersion": parsedAppVersion
        case "osVersion": parsedOSVersion
        default: nil
        }
    }

    /// An attribute as an RFC 3339 instant in milliseconds, for `before`/`after` (nil when absent or unparsable): the
    /// value ``attribute(_:)`` gives, read as a date. `firstInstallDate` and custom attributes as parsed once per
    /// context; another built-in's field (a string no cohort should compare as a date, such as `locale`) parsed now.
    /// `builtIn` is `name`'s built-in, looked up once by the caller.
    func instant(of name: String, builtIn: BuiltInAttribute?) -> Int64? {
        guard let builtIn else { return customInstant(name) }
        if builtIn.isInstant { return firstInstallMilliseconds }
        if let text = self[builtIn: builtIn] { return Self.instant(parsing: text) }
        return customInstant(name)
    }

    /// The custom attribute `name` as parsed when `custom` was set; nil when absent or not a date-time.
    func customInstant(_ name: String) -> Int64? {
        for instant in customInstants where instant.name == name { return instant.milliseconds }
        return nil
    }

    /// RFC 3339 text as milliseconds since 1970; nil when it is not a valid date-time with an offset.
    static func instant(parsing text: String) -> Int64? { try? RFC3339.milliseconds(parsing: text) }

    /// The custom string values that are RFC 3339 date-times, parsed. Text that cannot be one (shorter than
    /// `YYYY-MM-DDThh:mm:ssZ`, or not starting with a digit) is skipped without trying, so a context of ordinary
    /// custom strings pays a length and a byte check for each.
    static func instants(in custom: [String: JSONValue]) -> [CustomInstant] {
        var instants: [CustomInstant] = []
        for (name, value) in custom {
            guard case .string(let text) = value, text.utf8.count >= 20, let first = text.utf8.first,
                  first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9"), let instant = instant(parsing: text) else { continue }
            instants.append(CustomInstant(name: name, milliseconds: instant))
        }
        // In name order: contexts with the same custom attributes compare equal whatever the dictionary's order.
        instants.sort { $0.name < $1.name }
        return instants
    }

    /// The value of an attribute by name: built-in ones first, then custom ones.
    public func attribute(_ name: String) -> JSONValue? { attribute(name, builtIn: BuiltInAttribute(rawValue: name)) }

    /// ``attribute(_:)`` with `name`'s built-in already looked up (evaluation looks it up once per condition member,
    /// for the value and the instant both).
    func attribute(_ name: String, builtIn: BuiltInAttribute?) -> JSONValue? {
        guard let attribute = builtIn else { return custom[name] }
        // An instant that is not one (or not a string) is unknown, for every operator: `exists: true` never
        // holds for it, so no cohort treats garbage as a known install date.
        if attribute.isInstant { return firstInstallMilliseconds == nil ? nil : firstInstallDate.map(JSONValue.string) }
        let field = self[builtIn: attribute]
        // A built-in name given with a non-string value (`{"installId": 123}`) lands in `custom`;
        // it is found there rather than silently ignored.
        return field.map(JSONValue.string) ?? custom[name]
    }
}

extension EvaluationContext {
    /// The field of a built-in attribute, by a switch (evaluation reads attributes for every condition of every
    /// cohort, and a key path application costs several times a field access).
    public subscript(builtIn attribute: BuiltInAttribute) -> String? {
        get {
            switch attribute {
            case .installId: installId
            case .appVersion: appVersion
            case .osVersion: osVersion
            case .platform: platform
            case .locale: locale
            case .country: country
            case .channel: channel
            case .firstInstallDate: firstInstallDate
            }
        }
        set {
            switch attribute {
            case .installId: installId = newValue
            case .appVersion: appVersion = newValue
            case .osVersion: osVersion = newValue
            case .platform: platform = newValue
            case .locale: locale = newValue
            case .country: country = newValue
            case .channel: channel = newValue
            case .firstInstallDate: firstInstallDate = newValue
            }
        }
    }
}
