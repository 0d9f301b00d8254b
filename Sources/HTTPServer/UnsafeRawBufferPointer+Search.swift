import Glibc

/// Byte searches for the parser and the router through libc's `memchr`/`memcmp`, which compare a vector
/// of bytes per instruction. The generic `firstIndex(of:)` and `elementsEqual` go byte by byte through
/// the collection protocols, which a profile of a `304` shows as a visible share of the server's work.
extension UnsafeRawBufferPointer {
    /// Index of the first `byte` at or after `start`, or nil. Inlined: the parser calls these a dozen times
    /// per request, and an out-of-line call of the wrapper costs more than the `memchr` it wraps.
    @inline(__always)
    func index(of byte: UInt8, from start: Int = 0) -> Int? {
        start < count ? index(of: byte, in: start..<count) : nil
    }

    /// Index of the first `byte` in `range`, or nil.
    @inline(__always)
    func index(of byte: UInt8, in range: Range<Int>) -> Int? {
        guard !range.isEmpty, range.upperBound <= count, let base = baseAddress else { return nil }
        guard let found = memchr(base + range.lowerBound, Int32(byte), range.count) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }
}
