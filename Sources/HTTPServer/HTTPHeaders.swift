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

    /// Fields built by code (responses, tests) are strings; a parsed request's are its bytes with offsets
    /// (`HTTPFieldBlock`), decoded only when asked for. Any change turns the bytes into strings first.
    enum Storage: Sendable {
        case strings([Field])
        case block(HTTPFieldBlock.Shared)
    }

    var storage: Storage

    /// The fields in order.
    public var fields: [Field] {
        switch storage {
        case .strings(let fields): return fields
        case .block(let shared): return shared.block.read { view in (0..<view.count).map { view.field($0) } }
        }
    }

    /// No fields.
    public init() { storage = .strings([]) }

    /// Fields in the given order.
    public init(_ pairs: [(String, String)]) {
        storage = .strings(pairs.map { Field(name: $0.0, value: $0.1) })
    }

    /// Fields in literal order: `[.contentType: "application/json"]` (a string literal names a field too).
    public init(dictionaryLiteral elements: (HTTPHeaderName, String)...) {
        storage = .strings(elements.map { Field(name: $0.0.rawValue, value: $0.1) })
    }

    init(reservingCapacity capacity: Int) {
        var fields: [Field] = []
        fields.reserveCapacity(capacity)
        storage = .strings(fields)
    }

    /// The parser's fields, kept as bytes.
    init(block: HTTPFieldBlock) { storage = .block(HTTPFieldBlock.Shared(block: block)) }

    /// The first index.
    public var startIndex: Int { 0 }
    /// One past the last index.
    public var endIndex: Int {
        switch storage {
        case .strings(let fields): fields.count
        case .block(let shared): shared.block.count
        }
    }
    /// The field at `position`.
    public subscript(position: Int) -> Field {
        switch storage {
        case .strings(let fields): return fields[position]
        case .block(let shared):
            let block = shared.block
            precondition(position >= 0 && position < block.count, "HTTPHeaders index out of range")
            return block.read { $0.field(position) }
        }
    }

    /// Compares the fields in order (names and values as strings).
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool { lhs.fields == rhs.fields }

    /// The first value for `name` (case-insensitive), or nil.
    public subscript(name: String) -> String? {
        switch storage {
        case .strings(let fields):
            guard let i = firstIndex(named: name) else { return nil }
            return fields[i].value
        case .block(let shared):
            let block = shared.block
            guard block.mayHaveName(ofLength: name.utf8.count) else { return nil }
            return HTTPHeaders.withBytes(of: name) { wanted in
                block.read { view in view.firstIndex(named: wanted).map { String(decoding: view.value($0), as: UTF8.self) } }
            }
        }
    }

    /// Index of the first field called `name` (case-insensitive). Fields are visited by index and names of
    /// another length skipped before any comparison: iterating `fields` copied each field, a retain and a
    /// release of both strings, for every field on every lookup.
    func firstIndex(named name: String, from start: Int = 0) -> Int? {
        switch storage {
        case .strings(let fields):
            let length = name.utf8.count
            var i = start
            while i < fields.count {
                if fields[i].name.utf8.count == length && HTTPHeaders.equalsIgnoringCase(fields[i].name, name) { return i }
                i += 1
            }
            return nil
        case .block(let shared):
            let block = shared.block
            guard block.mayHaveName(ofLength: name.utf8.count) else { return nil }
            return HTTPHeaders.withBytes(of: name) { wanted in block.read { $0.firstIndex(named: wanted, from: start) } }
        }
    }

    /// Every value for `name` (case-insensitive), in order.
    public func values(for name: String) -> [String] {
        switch storage {
        case .strings(let fields):
            return fields.lazy.filter { HTTPHeaders.equalsIgnoringCase($0.name, name) }.map(\.value)
        case .block(let shared):
            let block = shared.block
            guard block.mayHaveName(ofLength: name.utf8.count) else { return [] }
            return HTTPHeaders.withBytes(of: name) { wanted in
                block.read { view in
                    var values: [String] = []
                    var next = view.firstIndex(named: wanted)
                    while let i = next {
                        values.append(String(decoding: view.value(i), as: UTF8.self))
                        next = view.firstIndex(named: wanted, from: i + 1)
                    }
                    return values
                }
            }
        }
    }

    /// Whether any value of `name` (case-insensitive), as bytes, satisfies `predicate`; the values are visited
    /// in order until one does. No string is made: this is how the request path reads a field it only tests
    /// (`Accept-Encoding`, `If-None-Match`, `Connection`), which costs a comparison of bytes rather than a
    /// decoded value per field.
    public func containsValue(named name: HTTPHeaderName, where predicate: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        containsValue(named: name.rawValue, where: predicate)
    }

    /// `containsValue(named:where:)` by name string.
    func containsValue(named name: String, where predicate: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        switch storage {
        case .strings(let fields):
            let length = name.utf8.count
            for field in fields where field.name.utf8.count == length && HTTPHeaders.equalsIgnoringCase(field.name, name) {
                if HTTPHeaders.withBytes(of: field.value, predicate) { return true }
            }
            return false
        case .block(let shared):
            let block = shared.block
            guard block.mayHaveName(ofLength: name.utf8.count) else { return false }
            return HTTPHeaders.withBytes(of: name) { wanted in
                block.read { view in
                    var next = view.firstIndex(named: wanted)
                    while let i = next {
                        if predicate(view.value(i)) { return true }
                        next = view.firstIndex(named: wanted, from: i + 1)
                    }
                    return false
                }
            }
        }
    }

    /// Whether a field called `name` is present.
    public func contains(_ name: String) -> Bool {
        firstIndex(named: name) != nil
    }

    /// The fields as strings, for a change.
    private mutating func mutableFields() -> [Field] {
        switch storage {
        case .strings(let fields):
            // Taken out so the array stays uniquely referenced while it changes.
            storage = .strings([])
            return fields
        case .block:
            return fields
        }
    }

    /// Appends a field, keeping any existing ones with the same name.
    public mutating func add(name: String, value: String) {
        var fields = mutableFields()
        fields.append(Field(name: name, value: value))
        storage = .strings(fields)
    }

    /// Replaces every field called `name` by one with `value`.
    public mutating func replaceOrAdd(name: String, value: String) {
        var fields = mutableFields()
        fields.removeAll { HTTPHeaders.equalsIgnoringCase($0.name, name) }
        fields.append(Field(name: name, value: value))
        storage = .strings(fields)
    }

    /// Removes every field called `name`.
    public mutating func remove(_ name: String) {
        var fields = mutableFields()
        fields.removeAll { HTTPHeaders.equalsIgnoringCase($0.name, name) }
        storage = .strings(fields)
    }

    /// Whether a comma-separated field (`Connection`, `Transfer-Encoding`) lists `token`, ignoring case (RFC 9110 §5.6.1).
    /// Walks the bytes without splitting (no allocation: it runs for every request).
    public func hasToken(_ token: String, in name: String) -> Bool {
        HTTPHeaders.withBytes(of: token) { wanted in
            containsValue(named: name) { HTTPHeaders.list($0, contains: wanted) }
        }
    }

    /// Calls `body` with the UTF-8 bytes of `text` (in place for native and literal strings).
    @inline(__always)
    static func withBytes<R>(of text: String, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        if let result = text.utf8.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) { return result }
        var copy = text
        return copy.withUTF8 { body(UnsafeRawBufferPointer($0)) }
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

    /// Whether `x` is `lowercase` ignoring ASCII case (`lowercase` spelled in lowercase).
    @inline(__always)
    static func equalsIgnoringCase(_ x: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
        x.count == lowercase.utf8CodeUnitCount
            && equalsIgnoringCase(x, UnsafeRawBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount))
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

    /// Appends a field without validation, for the parser (trailers) and `HTTPResponse.json`.
    mutating func appendParsed(_ field: Field) {
        var fields = mutableFields()
        fields.append(field)
        storage = .strings(fields)
    }
}
