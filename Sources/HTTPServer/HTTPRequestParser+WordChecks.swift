/// Eight bytes at a time: the request-target and every field value are checked for bytes that may not be in them;
/// a test on a 64-bit word finds out whether any of eight bytes needs a closer look (none, nearly always), where
/// a byte-by-byte loop pays a load, a compare and a branch for every byte.
extension HTTPRequestParser {
    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Whether a byte of `word` is below `n` (n <= 128; exact: no false alarm).
    @inline(__always)
    static func anyByte(of word: UInt64, below n: UInt8) -> Bool {
        (word &- ones &* UInt64(n)) & ~word & highs != 0
    }

    /// Whether a byte of `word` is `b`.
    @inline(__always)
    static func anyByte(of word: UInt64, equalTo b: UInt8) -> Bool {
        let x = word ^ (ones &* UInt64(b))
        return (x &- ones) & ~x & highs != 0
    }

    /// The request-target's check: -1 when every byte is visible ASCII (0x21-0x7E) and none is `?`, the offset
    /// of the first `?` when every byte is visible ASCII, nil when one is not.
    static func firstQuestionMark(visibleASCII bytes: UnsafeRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress else { return -1 }
        var i = 0
        let n = bytes.count
        while i + 8 <= n {
            let word = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            if anyByte(of: word, below: 0x21) || word & highs != 0 || anyByte(of: word, equalTo: 0x7F)
                || anyByte(of: word, equalTo: 0x3F) {
                break
            }
            i += 8
        }
        var query = -1
        while i < n {
            let b = bytes[i]
            guard b > 0x20 && b < 0x7F else { return nil }
            if b == 0x3F && query < 0 { query = i }
            i += 1
        }
        return query
    }

    /// Whether `bytes` may be a field value: no control character but HTAB, no DEL (obs-text is allowed).
    static func isFieldValue(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var i = 0
        let n = bytes.count
        while i + 8 <= n {
            let word = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            if anyByte(of: word, below: 0x20) || anyByte(of: word, equalTo: 0x7F) { break }
            i += 8
        }
        while i < n {
            let b = bytes[i]
            if (b < 0x20 && b != 0x09) || b == 0x7F { return false }
            i += 1
        }
        return true
    }
}
