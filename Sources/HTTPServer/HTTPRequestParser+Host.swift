/// The `Host` field's syntax (RFC 9112 §3.2: `uri-host [ ":" port ]`, RFC 3986 §3.2.2-3.2.3), checked on the
/// raw bytes of every request in `parseField`.
extension HTTPRequestParser {
    /// unreserved / sub-delims (RFC 3986 §2.3, §2.2: ALPHA, DIGIT, ``-._~`` and ``!$&'()*+,;=``), the
    /// characters of a reg-name besides pct-encoded, as the same two masks. Checked against the list in tests.
    static let hostMaskLow: UInt64 = 0x2BFF_7FD2_0000_0000
    static let hostMaskHigh: UInt64 = 0x47FF_FFFE_87FF_FFFE

    @inline(__always)
    static func isHostCharacter(_ b: UInt8) -> Bool {
        b < 64 ? (hostMaskLow >> UInt64(b)) & 1 == 1 : b < 128 && (hostMaskHigh >> UInt64(b - 64)) & 1 == 1
    }

    /// The last valid `Host` value of a connection, when it is at most 16 bytes: keep-alive clients send the
    /// same one on every request, and comparing two words costs less than checking the bytes again.
    struct HostCache {
        var length = -1
        var words: (UInt64, UInt64) = (0, 0)

        /// Whether `bytes` is known valid; otherwise checks it and remembers it when valid.
        mutating func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
            let n = bytes.count
            guard n <= 16, let base = bytes.baseAddress else { return HTTPRequestParser.isValidHost(bytes) }
            var loaded: (UInt64, UInt64) = (0, 0)
            if n >= 8 {
                // The first and the last eight bytes (overlapping when shorter than 16): with the length they
                // are the whole value, in two loads.
                loaded = (base.loadUnaligned(as: UInt64.self), base.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self))
            } else {
                withUnsafeMutableBytes(of: &loaded) { $0.copyMemory(from: bytes) }
            }
            if n == length && loaded == words { return true }
            guard HTTPRequestParser.isValidHost(bytes) else { return false }
            length = bytes.count
            words = loaded
            return true
        }
    }

    /// Whether a `Host` value is `uri-host [ ":" port ]` (RFC 9112 §3.2, RFC 3986 §3.2.2-3.2.3): an
    /// IP-literal in brackets, or a reg-name (which covers IPv4address) of unreserved, sub-delims and
    /// pct-encoded octets; then optionally a colon and digits. Empty is allowed (RFC 9110 §7.2: a target
    /// without authority). Anything else (spaces, `@`, `/`, a second colon, junk after the brackets) is 400.
    static func isValidHost(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // The usual host (a name or IPv4 address, maybe a port) in one pass of mask tests; brackets and
        // percent signs take the full grammar below.
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return true }  // empty
        let end = base + bytes.count
        var p = base
        // A pointer walk with the mask chosen by one comparison: no bounds check or index arithmetic per byte.
        while p < end {
            let b = p.pointee
            let mask = b < 64 ? hostMaskLow : hostMaskHigh
            if b >= 128 || (mask >> UInt64(b & 63)) & 1 == 0 { break }
            p += 1
        }
        if p < end && p.pointee == 0x3A {
            p += 1
            while p < end && p.pointee &- 0x30 < 10 { p += 1 }
            return p == end
        }
        return p == end || isValidHostSlowly(bytes)
    }

    /// The whole `uri-host [ ":" port ]` grammar, for IP-literals and pct-encoded reg-names.
    static func isValidHostSlowly(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        let n = bytes.count
        if n > 0 && bytes[0] == 0x5B {  // "[" IP-literal "]"
            i = 1
            while i < n && bytes[i] != 0x5D {
                guard isHostCharacter(bytes[i]) || bytes[i] == 0x3A else { return false }
                i += 1
            }
            guard i < n, i > 1 else { return false }
            i += 1
        } else {
            while i < n && bytes[i] != 0x3A {
                let b = bytes[i]
                if b == 0x25 {  // pct-encoded = "%" HEXDIG HEXDIG
                    guard i + 2 < n, HTTPRequest.hexValue(bytes[i + 1]) != nil, HTTPRequest.hexValue(bytes[i + 2]) != nil else {
                        return false
                    }
                    i += 3
                    continue
                }
                guard isHostCharacter(b) else { return false }
                i += 1
            }
        }
        if i == n { return true }
        guard bytes[i] == 0x3A else { return false }
        i += 1
        while i < n && bytes[i] &- 0x30 < 10 { i += 1 }
        return i == n
    }
}
