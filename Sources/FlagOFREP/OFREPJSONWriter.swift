import FlagKit

/// Writes OFREP response bodies straight into a byte buffer, members in a fixed order.
///
/// Responses are small and written for every evaluation, so they are not built as `JSONValue`
/// objects (which would sort keys and allocate dictionaries); flag values themselves are written
/// in FlagKit's canonical form, which keeps their JSON types exactly (`1` stays an integer,
/// `1.5` a number, objects stay objects).
struct OFREPJSONWriter {
    private(set) var bytes: [UInt8] = []
    private var needsComma = false

    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    mutating func beginObject() {
        separate()
        open(UInt8(ascii: "{"))
    }

    mutating func endObject() { close(UInt8(ascii: "}")) }

    mutating func beginArray(_ name: String) {
        key(name)
        open(UInt8(ascii: "["))
    }

    mutating func endArray() { close(UInt8(ascii: "]")) }

    mutating func beginObject(_ name: String) {
        key(name)
        open(UInt8(ascii: "{"))
    }

    /// An opening bracket: the first member or element needs no comma before it.
    private mutating func open(_ bracket: UInt8) {
        bytes.append(bracket)
        needsComma = false
    }

    /// A closing bracket: whatever follows in the enclosing container needs a comma.
    private mutating func close(_ bracket: UInt8) {
        bytes.append(bracket)
        needsComma = true
    }

    mutating func string(_ name: String, _ value: String) {
        key(name)
        Self.appendString(value, to: &bytes)
        needsComma = true
    }

    mutating func integer(_ name: String, _ value: Int) {
        key(name)
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    /// A flag value in canonical form. With `asFloat` (flags of type `number`) an integral value is
    /// written with `.0`: FlagKit reads `2.0` as the integer 2, but a strict client (the Python
    /// provider checks `isinstance(value, float)`) must see a float for a float flag, whatever its value.
    mutating func value(_ name: String, _ value: JSONValue, asFloat: Bool = false) {
        key(name)
        if asFloat, case .integer(let integral) = value {
            bytes.append(contentsOf: String(integral).utf8)
            bytes.append(contentsOf: ".0".utf8)
        } else {
            bytes.append(contentsOf: value.canonicalBytes)
        }
        needsComma = true
    }

    /// The `metadata` object of every OFREP answer: `{"environment":"...","version":N}`.
    mutating func metadata(_ snapshot: OFREPSnapshot) {
        metadata(environment: snapshot.environment, version: snapshot.version)
    }

    /// The `metadata` object for an environment and version.
    mutating func metadata(environment: String, version: Int) {
        beginObject("metadata")
        string("environment", environment)
        integer("version", version)
        endObject()
    }

    /// A complete JSON value already encoded (a prepared answer object), as the next array element.
    mutating func raw(_ encoded: [UInt8]) {
        separate()
        bytes.append(contentsOf: encoded)
        needsComma = true
    }

    private mutating func key(_ name: String) {
        separate()
        Self.appendString(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = false
    }

    /// Appends `text` as a JSON string, with FlagKit's encoder (the same bytes as canonical JSON).
    static func appendString(_ text: String, to out: inout [UInt8]) {
        JSONValue.appendString(text, to: &out)
    }
}
