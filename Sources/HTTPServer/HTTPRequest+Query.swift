extension HTTPRequest {
    /// The query's `name=value` pairs in order, percent-decoded (`+` means space, as HTML forms send it).
    public var queryItems: [(name: String, value: String)] {
        guard let query else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            if let eq = pair.firstIndex(of: "=") {
                return (
                    HTTPRequest.percentDecode(pair[..<eq], plusIsSpace: true) ?? String(pair[..<eq]),
                    HTTPRequest.percentDecode(pair[pair.index(after: eq)...], plusIsSpace: true)
                        ?? String(pair[pair.index(after: eq)...])
                )
            }
            return (HTTPRequest.percentDecode(pair, plusIsSpace: true) ?? String(pair), "")
        }
    }

    /// The first decoded value of query parameter `name`, or nil when absent (`?dryRun=true` gives `"true"`).
    public func queryParameter(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// Decodes `%XX` escapes (RFC 3986 §2.1); nil when an escape is malformed or the result is not UTF-8.
    public static func percentDecode<S: StringProtocol>(_ text: S, plusIsSpace: Bool = false) -> String? {
        let utf8 = text.utf8
        if !utf8.contains(0x25) && !(plusIsSpace && utf8.contains(0x2B)) { return String(text) }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        var it = utf8.makeIterator()
        while let b = it.next() {
            if b == 0x25 {
                guard let h = it.next().flatMap(hexValue), let l = it.next().flatMap(hexValue) else { return nil }
                out.append(h << 4 | l)
            } else if b == 0x2B && plusIsSpace {
                out.append(0x20)
            } else {
                out.append(b)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    /// The value of one hex digit, or nil.
    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: b - 0x30
        case 0x41...0x46: b - 0x41 + 10
        case 0x61...0x66: b - 0x61 + 10
        default: nil
        }
    }
}
