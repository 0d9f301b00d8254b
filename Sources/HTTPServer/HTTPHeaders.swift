/// Header fields in the order they were sent or added; duplicates are kept, lookup ignores ASCII case (RFC 9110 §5.1).
public struct HTTPHeaders: Sendable, Equatable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    /// One field line.
    public struct Field: Sendable, Equatable {
        /// The name as sent (case preserved).
        public var name: String
        /// The value with surrounding whitespace removed (RFC 9112 §5).
        public var value: String

        /// A field line.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields in order.
    public private(set) var fields: [Field]

    /// No fields.
    public init() { fields = [] }

    /// Fields in the given order.
    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    /// Fields in literal order: `[.contentType: "application/json"]` (a string literal names a field too).
    public init(dictionaryLiteral elements: (HTTPHeaderName, String)...) {
        fields = elements.map { Field(name: $0.0.rawValue, value: $0.1) }
    }

    init(reservingCapacity capacity: Int) {
        fields = []
        fields.reserveCapacity(capacity)
    }

    /// The first index.
    public var startIndex: Int { fields.startIndex }
    /// One past the last index.
    public var endIndex: Int { fields.endIndex }
    /// The field at `position`.
    public subscript(position: Int) -> Field { fields[position] }

    /// The first value for `name` (case-insensitive), or nil.
    public subscript(name: String) -> String? {
        guard let i = firstIndex(named: name) else { return nil }
        return fields[i].value
    }

    /// Index of the first field called `name` (case-insensitive). Fields are visited by index and names of
    /// another length skipped before any comparison: iterating `fields` copied each field, a retain and a
    /// release of both strings, for every field on every lookup.
    func firstIndex(named name: String, from start: Int = 0) -> Int? {
        let length = name.utf8.count
        var i = start
        while i < fields.count {
            if fields[i].name.utf8.count == length && HTTPHeaders.equalsIgnoringCase(fields[i].name, name) { return i }
            i += 1
        }
        return nil
    }

    /// Every value for `name` (case-insensitive), in order.
    public func values(for name: String) -> [String] {
        fields.lazy.filter { HTTPHeaders.equalsIgnoringCase($0.name, name) }.map(\.value)
    }

    /// Whether a field called `name` is present.
    public func contains(_ name: String) -> Bool {
        firstIndex(named: name) != nil
    }

    /// Appends a field, keeping any existing ones with the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field called `name` by one with `value`.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name)
        fields.append(Field(name: name, value: value))
    }

    /// Removes every field called `name`.
    public mutating func remove(_ name: String) {
        fields.removeAll { HTTPHeaders.equalsIgnoringCase($0.name, name) }
    }

    /// Whether a comma-separated field (`Connection`, `Transfer-Encoding`) lists `token`, ignoring case (RFC 9110 §5.6.1).
    /// Walks the bytes without splitting (no allocation: it runs for every request).
    public func hasToken(_ token: String, in name: String) -> Bool {
        var next = firstIndex(named: name)
        while let index = next {
            next = firstIndex(named: name, from: index + 1)
            let found = fields[index].value.utf8.withContiguousStorageIfAvailable { value in
                token.utf8.withContiguousStorageIfAvailable { wanted in
                    HTTPHeaders.list(UnsafeRawBufferPointer(value), contains: UnsafeRawBufferPointer(wanted))
                } ?? false
            }
            if found == true { return true }
        }
        return false
    }

    /// Whether the comma-separated `list` has an element equal to `token` ignoring ASCII case, after
    /// trimming spaces and tabs around each element (RFC 9110 §5.6.1).
    static func list(_ list: UnsafeRawBufferPointer, contains token: UnsafeRawBufferPointer) -> Bool {
        var start = 0
        while start <= list.count {
            let end = list.index(of: 0x2C, from: start) ?? list.count
            var s = start, e = end
            while s < e, list[s] == 0x20 || list[s] == 0x09 { s += 1 }
            while e > s, list[e - 1] == 0x20 || list[e - 1] == 0x09 { e -= 1 }
            if equalsIgnoringCase(UnsafeRawBufferPointer(rebasing: list[s..<e]), token) { return true }
            start = end + 1
        }
        return false
    }

    /// ASCII case-insensitive comparison without allocating.
    static func equalsIgnoringCase<A: StringProtocol, B: StringProtocol>(_ a: A, _ b: B) -> Bool {
        let x = a.utf8, y = b.utf8
        guard x.count == y.count else { return false }
        let fast = x.withContiguousStorageIfAvailable { p in
            y.withContiguousStorageIfAvailable { q in equalsIgnoringCase(UnsafeRawBufferPointer(p), UnsafeRawBufferPointer(q)) }
        }
        if let result = fast ?? nil { return result }
        for (p, q) in zip(x, y) where p != q {
            guard (p | 0x20) == (q | 0x20), (p | 0x20) >= 0x61, (p | 0x20) <= 0x7A else { return false }
        }
        return true
    }

    static func equalsIgnoringCase(_ x: UnsafeRawBufferPointer, _ y: UnsafeRawBufferPointer) -> Bool {
        guard x.count == y.count else { return false }
        for i in 0..<x.count {
            let p = x[i], q = y[i]
            if p != q {
                let l = p | 0x20
                guard l == (q | 0x20), l >= 0x61, l <= 0x7A else { return false }
            }
        }
        return true
    }

    /// `element` without leading and trailing spaces and tabs (OWS, RFC 9110 §5.6.3).
    package static func trimmed(_ element: Substring) -> Substring {
        var s = element
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }

    // MARK: By typed name (`HTTPHeaderName`), the spelling the modules use. Inlinable forwarders: a lookup by
    // a constant costs what the lookup by its literal did.

    /// The first value for `name` (case-insensitive), or nil.
    @inlinable public subscript(name: HTTPHeaderName) -> String? { self[name.rawValue] }

    /// Every value for `name` (case-insensitive), in order.
    @inlinable public func values(for name: HTTPHeaderName) -> [String] { values(for: name.rawValue) }

    /// Whether a field called `name` is present.
    @inlinable public func contains(_ name: HTTPHeaderName) -> Bool { contains(name.rawValue) }

    /// Appends a field, keeping any existing ones with the same name.
    @inlinable public mutating func add(name: HTTPHeaderName, value: String) { add(name: name.rawValue, value: value) }

    /// Replaces every field called `name` by one with `value`.
    @inlinable public mutating func replaceOrAdd(name: HTTPHeaderName, value: String) { replaceOrAdd(name: name.rawValue, value: value) }

    /// Removes every field called `name`.
    @inlinable public mutating func remove(_ name: HTTPHeaderName) { remove(name.rawValue) }

    /// Whether the comma-separated field `name` lists `token`, ignoring case (RFC 9110 §5.6.1).
    @inlinable public func hasToken(_ token: String, in name: HTTPHeaderName) -> Bool { hasToken(token, in: name.rawValue) }

    /// Appends a field without validation, for the parser.
    mutating func appendParsed(_ field: Field) { fields.append(field) }
}
