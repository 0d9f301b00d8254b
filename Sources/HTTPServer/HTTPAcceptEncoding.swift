/// What `Accept-Encoding` (RFC 9110 §12.5.3) accepts: the one reader of the field for every server module.
///
/// `Accept-Encoding = #( codings [ weight ] )`, `codings = content-coding / "identity" / "*"`,
/// `weight = OWS ";" OWS "q=" qvalue` (§12.4.2). A coding is acceptable when it is listed with a weight above 0,
/// or, when it is not listed, when `*` is (with a weight above 0). Names compare without case (§8.4.1);
/// `x-gzip` is `gzip` (§8.4.1.3). A member that does not parse is skipped; the others still count.
///
/// The field is read as bytes where it arrived (`HTTPHeaders.containsValue`): browsers and URLSession send
/// `gzip, deflate, br` with every request, and splitting that into substrings would cost as much as the rest
/// of a document GET.
public enum HTTPAcceptEncoding {
    /// Whether the request's `Accept-Encoding` fields accept `gzip`. No field: false (§12.5.3 allows any coding
    /// then, but a client that did not ask is sent the identity body, as every server does).
    public static func acceptsGzip(_ headers: HTTPHeaders) -> Bool {
        var weights = Weights()
        let exact = headers.containsValue(named: .acceptEncoding) { field in weights.add(field) }
        return exact || weights.acceptsGzip
    }

    /// Whether the `Accept-Encoding` field lines `fields` accept `gzip`.
    public static func acceptsGzip(_ fields: [String]) -> Bool {
        var weights = Weights()
        for field in fields where HTTPHeaders.withBytes(of: field, { weights.add($0) }) { return true }
        return weights.acceptsGzip
    }

    /// The highest weights (thousandths) given to gzip and to `*` so far.
    struct Weights {
        var gzip: Int?
        var any: Int?

        /// Adds one field line's members; true when the line is exactly `gzip` (decided without walking it).
        mutating func add(_ field: UnsafeRawBufferPointer) -> Bool {
            if HTTPHeaders.equalsIgnoringCase(field, "gzip") { return true }
            HTTPAcceptEncoding.forEachMember(field) { name, weight in
                if HTTPHeaders.equalsIgnoringCase(name, "gzip") || HTTPHeaders.equalsIgnoringCase(name, "x-gzip") {
                    gzip = max(gzip ?? 0, weight)
                } else if name.count == 1 && name[0] == UInt8(ascii: "*") {
                    any = max(any ?? 0, weight)
                }
            }
            return false
        }

        var acceptsGzip: Bool {
            if let gzip { return gzip > 0 }
            return (any ?? 0) > 0
        }
    }

    /// Calls `body` with each member's coding name and weight (thousandths; 1000 without `q`). Skips empty
    /// members, members whose name is empty, and members whose `q` is not a qvalue.
    static func forEachMember(_ field: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, Int) -> Void) {
        var start = 0
        while start < field.count {
            let end = field.index(of: UInt8(ascii: ","), from: start) ?? field.count
            member(UnsafeRawBufferPointer(rebasing: field[start..<end]), body)
            start = end + 1
        }
    }

    /// One member: `name *( OWS ";" OWS parameter )`.
    private static func member(_ member: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, Int) -> Void) {
        var partEnd = member.index(of: UInt8(ascii: ";")) ?? member.count
        let name = trimmed(UnsafeRawBufferPointer(rebasing: member[0..<partEnd]))
        guard !name.isEmpty else { return }
        var weight = 1000
        while partEnd < member.count {
            let start = partEnd + 1
            partEnd = member.index(of: UInt8(ascii: ";"), from: start) ?? member.count
            let parameter = trimmed(UnsafeRawBufferPointer(rebasing: member[start..<partEnd]))
            guard parameter.count >= 2, parameter[0] | 0x20 == UInt8(ascii: "q"), parameter[1] == UInt8(ascii: "=") else { continue }
            guard let q = qvalue(UnsafeRawBufferPointer(rebasing: parameter[2...])) else { return }
            weight = q
        }
        body(name, weight)
    }

    /// `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )` (§12.4.2) in thousandths, or nil.
    static func qvalue(_ text: UnsafeRawBufferPointer) -> Int? {
        guard let first = text.first, first == UInt8(ascii: "0") || first == UInt8(ascii: "1") else { return nil }
        var value = first == UInt8(ascii: "1") ? 1000 : 0
        guard text.count > 1 else { return value }
        guard text[1] == UInt8(ascii: "."), text.count <= 5 else { return nil }
        var scale = 100
        for digit in text[2...] {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            value += Int(digit - UInt8(ascii: "0")) * scale
            scale /= 10
        }
        return value <= 1000 ? value : nil
    }

    private static func trimmed(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var s = 0, e = bytes.count
        while s < e, bytes[s] == 0x20 || bytes[s] == 0x09 { s += 1 }
        while e > s, bytes[e - 1] == 0x20 || bytes[e - 1] == 0x09 { e -= 1 }
        return UnsafeRawBufferPointer(rebasing: bytes[s..<e])
    }
}
