/// An ordered list of HTTP header fields with case-insensitive lookup by name (RFC 9110 section 5.1).
///
/// Order and repeated fields are kept as received, because some fields (e.g. `Set-Cookie`) cannot be combined.
public struct ClientHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field as a name/value pair; the name keeps its original spelling.
    public typealias Field = (name: String, value: String)

    private var storage: [Field] = []

    /// Creates an empty header list.
    public init() {}

    /// Creates a header list from fields, keeping their order.
    public init(_ fields: [Field]) { storage = fields }

    /// Creates a header list from a literal, keeping its order: `[.accept: "application/json"]` (a string
    /// literal names a field too).
    public init(dictionaryLiteral elements: (ClientHeaderName, String)...) {
        storage = elements.map { (name: $0.0.rawValue, value: $0.1) }
    }

    /// All fields in order.
    public var fields: [Field] { storage }

    /// The number of fields.
    public var count: Int { storage.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { storage.isEmpty }

    /// The first value of the field named `name` (any case), or `nil`.
    public subscript(name: String) -> String? {
        storage.first { Self.sameName($0.name, name) }?.value
    }

    /// Every value of the field named `name` (any case), in received order.
    public func values(for name: String) -> [String] {
        storage.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    /// Whether a field named `name` (any case) is present.
    public func contains(_ name: String) -> Bool {
        storage.contains { Self.sameName($0.name, name) }
    }

    /// Appends a field, keeping any existing fields of the same name.
    public mutating func add(name: String, value: String) {
        storage.append((name: name, value: value))
    }

    /// Replaces all fields named `name` (any case) by one field with `value`.
    public mutating func set(name: String, value: String) {
        remove(name: name)
        storage.append((name: name, value: value))
    }

    /// Removes all fields named `name` (any case).
    public mutating func remove(name: String) {
        storage.removeAll { Self.sameName($0.name, name) }
    }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> {
        storage.makeIterator()
    }

    /// Field-by-field equality; names compare case-insensitively, values exactly.
    public static func == (lhs: ClientHeaders, rhs: ClientHeaders) -> Bool {
        lhs.storage.count == rhs.storage.count
            && zip(lhs.storage, rhs.storage).allSatisfy { sameName($0.name, $1.name) && $0.value == $1.value }
    }

    /// Field names are ASCII tokens, so an ASCII case fold is exact (RFC 9110 section 5.1).
    static func sameName(_ a: String, _ b: String) -> Bool {
        let a = a.utf8, b = b.utf8
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { asciiLower($0) == asciiLower($1) }
    }

    private static func asciiLower(_ byte: UInt8) -> UInt8 {
        (byte >= 65 && byte <= 90) ? byte + 32 : byte
    }

    /// Whether a field can be put on the wire: a token name and a value without CR, LF or NUL (RFC 9110 section 5.5).
    static func isSendable(name: String, value: String) -> Bool {
        guard ClientMethod(rawValue: name).isValidToken else { return false }
        return !value.utf8.contains { $0 == 0 || $0 == 10 || $0 == 13 }
    }
}
