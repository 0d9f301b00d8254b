/// What `Accept-Encoding` (RFC 9110 §12.5.3) accepts: the one reader of the field for every server module.
///
/// `Accept-Encoding = #( codings [ weight ] )`, `codings = content-coding / "identity" / "*"`,
/// `weight = OWS ";" OWS "q=" qvalue` (§12.4.2). A coding is acceptable when it is listed with a weight above 0,
/// or, when it is not listed, when `*` is (with a weight above 0). Names compare without case (§8.4.1);
/// `x-gzip` is `gzip` (§8.4.1.3). A member that does not parse is skipped; the others still count.
public enum HTTPAcceptEncoding {
    /// Whether the `Accept-Encoding` field lines `fields` accept `gzip`. No field: false (§12.5.3 allows any
    /// coding then, but a client that did not ask is sent the identity body, as every server does).
    public static func acceptsGzip(_ fields: [String]) -> Bool {
        var gzip: Int?  // the highest weight given to gzip, in thousandths
        var any: Int?
        for field in fields {
            // The common field, `gzip` alone, is decided without walking it.
            if field.utf8.count == 4 && field == "gzip" { return true }
            forEachMember(field.utf8[...]) { name, weight in
                if equalsIgnoringCase(name, "gzip") || equalsIgnoringCase(name, "x-gzip") {
                    gzip = max(gzip ?? 0, weight)
                } else if name.count == 1 && name.first == UInt8(ascii: "*") {
                    any = max(any ?? 0, weight)
                }
            }
        }
        if let gzip { return gzip > 0 }
        return (any ?? 0) > 0
    }

    /// Calls `body` with each member's coding name and weight (thousandths; 1000 without `q`). Skips members
    /// whose name is empty or whose `q` is not a qvalue.
    static func forEachMember(_ field: Substring.UTF8View, _ body: (Substring.UTF8View, Int) -> Void) {
        for member in field.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: true) {
            var parts = member.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)[...]
            guard let first = parts.popFirst() else { continue }
            let name = trimmed(first)
            guard !name.isEmpty else { continue }
            var weight = 1000
            var valid = true
            for parameter in parts {
                let parameter = trimmed(parameter)
                guard parameter.count >= 2, parameter.first == UInt8(ascii: "q") || parameter.first == UInt8(ascii: "Q"),
                      parameter[parameter.index(after: parameter.startIndex)] == UInt8(ascii: "=") else { continue }
                guard let q = qvalue(parameter.dropFirst(2)) else { valid = false; break }
                weight = q
            }
            if valid { body(name, weight) }
        }
    }

    /// `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )` (§12.4.2) in thousandths, or nil.
    static func qvalue(_ text: Substring.UTF8View) -> Int? {
        guard let first = text.first, first == UInt8(ascii: "0") || first == UInt8(ascii: "1") else { return nil }
        var rest = text.dropFirst()
        var value = first == UInt8(ascii: "1") ? 1000 : 0
        guard let dot = rest.first else { return value }
        guard dot == UInt8(ascii: "."), rest.count <= 4 else { return nil }
        rest = rest.dropFirst()
        var scale = 100
        for digit in rest {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            value += Int(digit - UInt8(ascii: "0")) * scale
            scale /= 10
        }
        return value <= 1000 ? value : nil
    }

    private static func trimmed(_ bytes: Substring.UTF8View) -> Substring.UTF8View {
        var bytes = bytes
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes = bytes.dropLast() }
        return bytes
    }

    private static func equalsIgnoringCase(_ bytes: Substring.UTF8View, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        return zip(bytes, expected).allSatisfy { ($0 | 0x20) == $1 || $0 == $1 }
    }
}
