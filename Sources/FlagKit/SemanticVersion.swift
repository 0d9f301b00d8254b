/// A Semantic Versioning 2.0.0 version, as used for `appVersion` and `osVersion` comparisons.
///
/// Missing minor and patch parts read as 0 (`2.4` equals `2.4.0`), because app and OS versions are
/// often written that way. Everything else is strict SemVer: numeric parts without leading zeros,
/// dot-separated pre-release identifiers, build metadata ignored for precedence (SemVer section 10).
public struct SemanticVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// One dot-separated pre-release identifier.
    public enum Identifier: Sendable, Hashable {
        /// Digits only, compared numerically.
        case numeric(UInt64)
        /// Anything else, compared by ASCII order.
        case alphanumeric(String)
    }

    /// `MAJOR`.
    public let major: UInt64
    /// `MINOR`, 0 when not written.
    public let minor: UInt64
    /// `PATCH`, 0 when not written.
    public let patch: UInt64
    /// Pre-release identifiers; empty for a release.
    public let preRelease: [Identifier]
    /// Build metadata, kept for display only.
    public let build: [String]

    /// Parses `1`, `1.2`, `1.2.3`, `1.2.3-beta.1`, `1.2.3+build.5`; `nil` for anything else.
    public init?(_ text: String) {
        // Most app and OS versions are plain `2.4.1`: those are read from the UTF-8 bytes without
        // building substrings (this runs for every OFREP request that sends a version).
        if let plain = Self.plainRelease(text.utf8) {
            guard let plain else { return nil }
            self = plain
        } else {
            self.init(general: text)
        }
    }

    /// The general parser (pre-release and build parts); the plain fast path must agree with it.
    init?(general text: String) {
        var rest = Substring(text)
        var build: [String] = []
        if let plus = rest.firstIndex(of: "+") {
            let parts = rest[rest.index(after: plus)...].split(separator: ".", omittingEmptySubsequences: false)
            guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(Self.isIdentifierCharacter) }) else { return nil }
            build = parts.map(String.init)
            rest = rest[..<plus]
        }
        var preRelease: [Identifier] = []
        if let dash = rest.firstIndex(of: "-") {
            let parts = rest[rest.index(after: dash)...].split(separator: ".", omittingEmptySubsequences: false)
            for part in parts {
                guard !part.isEmpty, part.allSatisfy(Self.isIdentifierCharacter) else { return nil }
                if part.allSatisfy(\.isASCIIDigit) {
                    guard part == "0" || part.first != "0", let number = UInt64(part) else { return nil }
                    preRelease.append(.numeric(number))
                } else {
                    preRelease.append(.alphanumeric(String(part)))
                }
            }
            rest = rest[..<dash]
        }
        let core = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(core.count) else { return nil }
        var numbers: [UInt64] = []
        for part in core {
            guard !part.isEmpty, part.allSatisfy(\.isASCIIDigit), part == "0" || part.first != "0",
                  let number = UInt64(part) else { return nil }
            numbers.append(number)
        }
        while numbers.count < 3 { numbers.append(0) }
        self.major = numbers[0]
        self.minor = numbers[1]
        self.patch = numbers[2]
        self.preRelease = preRelease
        self.build = build
    }

    /// A version of digits and dots only, by the same rules as the general parser (one to three
    /// non-empty numeric parts, no leading zeros, each fitting `UInt64`): `.some(nil)` when such text
    /// is not a version, nil when the text has other characters and needs the general parser.
    private static func plainRelease(_ bytes: String.UTF8View) -> SemanticVersion?? {
        var numbers: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var part = 0, digits = 0, value: UInt64 = 0, leadingZero = false, valid = true
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                if digits == 0 || part == 2 { valid = false } else {
                    if part == 0 { numbers.0 = value } else { numbers.1 = value }
                }
                part += 1
                digits = 0
                value = 0
                leadingZero = false
                continue
            }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            if digits == 1 && leadingZero { valid = false }
            if digits == 0 && byte == UInt8(ascii: "0") { leadingZero = true }
            let (times, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            if overflowA || overflowB { valid = false }
            value = sum
            digits += 1
        }
        guard valid, digits > 0, part <= 2 else { return .some(nil) }
        switch part {
        case 0: numbers.0 = value
        case 1: numbers.1 = value
        default: numbers.2 = value
        }
        return .some(SemanticVersion(major: numbers.0, minor: numbers.1, patch: numbers.2))
    }

    private init(major: UInt64, minor: UInt64, patch: UInt64) {
        self.major = major
        self.minor = minor
        self.patch = patch
        self.preRelease = []
        self.build = []
    }

    private static func isIdentifierCharacter(_ character: Character) -> Bool {
        character.isASCIIDigit || character == "-" || (character.isASCII && character.isLetter)
    }

    /// The normalized form: always three numeric parts.
    public var description: String {
        var text = "\(major).\(minor).\(patch)"
        if !preRelease.isEmpty {
            text += "-" + preRelease.map { identifier in
                switch identifier {
                case .numeric(let number): String(number)
                case .alphanumeric(let string): string
                }
            }.joined(separator: ".")
        }
        if !build.isEmpty { text += "+" + build.joined(separator: ".") }
        return text
    }

    /// Equality of precedence: build metadata does not count (SemVer section 10).
    public static func == (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        lhs.major == rhs.major && lhs.minor == rhs.minor && lhs.patch == rhs.patch && lhs.preRelease == rhs.preRelease
    }

    /// Hashes what equality compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(major)
        hasher.combine(minor)
        hasher.combine(patch)
        hasher.combine(preRelease)
    }

    /// Precedence as SemVer section 11 defines it.
    public static func < (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        if lhs.major != rhs.major { return lhs.major < rhs.major }
        if lhs.minor != rhs.minor { return lhs.minor < rhs.minor }
        if lhs.patch != rhs.patch { return lhs.patch < rhs.patch }
        // A pre-release sorts before its release (11.3).
        switch (lhs.preRelease.isEmpty, rhs.preRelease.isEmpty) {
        case (true, true), (true, false): return false
        case (false, true): return true
        case (false, false): break
        }
        for (left, right) in zip(lhs.preRelease, rhs.preRelease) where left != right {
            switch (left, right) {
            case (.numeric(let a), .numeric(let b)): return a < b
            case (.numeric, .alphanumeric): return true  // 11.4.3: numeric identifiers sort first
            case (.alphanumeric, .numeric): return false
            case (.alphanumeric(let a), .alphanumeric(let b)): return a.utf8.lexicographicallyPrecedes(b.utf8)
            }
        }
        return lhs.preRelease.count < rhs.preRelease.count  // 11.4.4: a longer set wins when all else is equal
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
