import Glibc

/// Bytes on their way to a socket: raw memory that grows by doubling, appended to with `memcpy` and sent from
/// `unsent`. Each loop serializes its responses into one (`EventLoop.output`); a connection whose socket did
/// not take everything keeps the rest in one of its own until it is sent (`Connection.outbound`).
///
/// Not an `Array`: appending a few bytes to `[UInt8]` goes through the generic sequence path and a uniqueness
/// check on every call, and a response is made of six appends.
final class OutputBuffer {
    private var base: UnsafeMutableRawPointer?
    private var capacity = 0
    /// Bytes appended and not yet consumed: `start..<end`.
    private var start = 0
    private var end = 0

    /// An empty buffer; memory is taken on the first append.
    init() {}

    /// A buffer holding a copy of `bytes`.
    convenience init(copying bytes: UnsafeRawBufferPointer) {
        self.init()
        append(contentsOf: bytes)
    }

    deinit { base?.deallocate() }

    /// Bytes waiting.
    var count: Int { end - start }
    var isEmpty: Bool { end == start }

    /// Makes room for `extra` more bytes, so the appends that follow do not grow it one by one.
    @inline(__always)
    func reserveCapacity(forAppending extra: Int) {
        if end + extra > capacity { grow(extra) }
    }

    private func grow(_ extra: Int) {
        let used = end - start
        // Consumed bytes at the front are given back first; a buffer only doubles when that is not enough.
        if start > 0 && used + extra <= capacity, let base {
            if used > 0 { memmove(base, base + start, used) }
            start = 0
            end = used
            return
        }
        var newCapacity = max(capacity * 2, 4096)
        while newCapacity < used + extra { newCapacity *= 2 }
        let fresh = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
        if let base {
            if used > 0 { fresh.copyMemory(from: base + start, byteCount: used) }
            base.deallocate()
        }
        base = fresh
        capacity = newCapacity
        start = 0
        end = used
    }

    @inline(__always)
    func append(contentsOf bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        if end + bytes.count > capacity { grow(bytes.count) }
        guard let base else { return }
        (base + end).copyMemory(from: source, byteCount: bytes.count)
        end += bytes.count
    }

    @inline(__always)
    func append(contentsOf bytes: [UInt8]) {
        bytes.withUnsafeBytes { append(contentsOf: $0) }
    }

    @inline(__always)
    func append(_ byte: UInt8) {
        if end + 1 > capacity { grow(1) }
        guard let base else { return }
        base.storeBytes(of: byte, toByteOffset: end, as: UInt8.self)
        end += 1
    }

    /// Appends a literal's bytes (no array to retain).
    @inline(__always)
    func append(_ text: StaticString) {
        append(contentsOf: UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// The bytes waiting; valid only during the call.
    @inline(__always)
    func withUnsent<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        guard let base else { return body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return body(UnsafeRawBufferPointer(start: base + start, count: end - start))
    }

    /// Drops the first `n` waiting bytes (they were sent).
    func consume(_ n: Int) {
        start += min(n, end - start)
        if start == end {
            start = 0
            end = 0
        }
    }

    /// Drops everything; memory over `keepingAtMost` bytes is given back.
    func removeAll(keepingAtMost limit: Int) {
        start = 0
        end = 0
        if capacity > limit, let base {
            base.deallocate()
            self.base = nil
            capacity = 0
        }
    }
}

/// Where serialized bytes go: an `OutputBuffer`, or an array (a prepared response head, tests).
protocol ByteSink {
    mutating func append(contentsOf bytes: [UInt8])
    mutating func append(contentsOf bytes: UnsafeRawBufferPointer)
    mutating func append(_ byte: UInt8)
}

extension ByteSink {
    /// Appends the UTF-8 bytes of `text`.
    mutating func append(utf8 text: String) {
        HTTPHeaders.withBytes(of: text) { append(contentsOf: $0) }
    }
}

extension Array: ByteSink where Element == UInt8 {}

extension OutputBuffer: ByteSink {}
