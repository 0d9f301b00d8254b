import Glibc

/// The header section of a parsed request as it arrived: its bytes, copied once, and where each field line's
/// name and value lie in them. Nothing is decoded into a `String` until someone asks for that field, so a
/// request pays for the fields its handler reads, not for every field the client sent: decoding every value
/// would be an allocation (for values over 15 bytes) and a UTF-8 check per field, and string lookups would
/// compare strings. Lookups compare bytes here.
///
/// One allocation: a table of four `UInt32` per field (name start and end, value start and end, relative to
/// the bytes) followed by the bytes. Filled by the parser before anyone else sees it, immutable afterwards,
/// so copies of a request share it, also across threads (`HTTPHeaders` holds it as `Shared`: `ManagedBuffer`
/// itself may not be `Sendable`).
final class HTTPFieldBlock: ManagedBuffer<HTTPFieldBlock.Info, UInt8> {
    /// A filled block, which nothing changes any more.
    struct Shared: @unchecked Sendable {
        let block: HTTPFieldBlock
    }

    struct Info {
        /// Fields filled in.
        var count: Int
        /// Room in the table.
        let capacity: Int
        /// Bytes after the table.
        let byteCount: Int
        /// Bit `n % 64` is set when a field name is `n` bytes long: a lookup of a name of another length (most
        /// lookups: a request has a few fields, a handler asks for ones it may not have) ends without a scan.
        var nameLengths: UInt64 = 0
    }

    /// The table's size per field.
    static let entryBytes = 4 * MemoryLayout<UInt32>.size

    /// A block with room for `capacity` fields and a copy of `bytes` (the field lines, CRLFs included).
    static func make(capacity: Int, copying bytes: UnsafeRawBufferPointer) -> HTTPFieldBlock {
        let tableBytes = capacity * entryBytes
        let created = create(minimumCapacity: tableBytes + bytes.count) { _ in
            Info(count: 0, capacity: capacity, byteCount: bytes.count, nameLengths: 0)
        }
        let block = unsafeDowncast(created, to: HTTPFieldBlock.self)
        block.withUnsafeMutablePointerToElements { elements in
            if let source = bytes.baseAddress, bytes.count > 0 {
                UnsafeMutableRawPointer(elements + tableBytes).copyMemory(from: source, byteCount: bytes.count)
            }
        }
        return block
    }

    /// Through the pointer: `header` is a class property, and reading it paid a dynamic exclusivity check.
    var count: Int { withUnsafeMutablePointerToHeader { $0.pointee.count } }

    /// Room in the table.
    var fieldCapacity: Int { withUnsafeMutablePointerToHeader { $0.pointee.capacity } }

    /// Records the next field: name and value as offsets into the bytes (the parser checked them).
    func append(nameStart: Int, nameEnd: Int, valueStart: Int, valueEnd: Int) {
        withUnsafeMutablePointers { info, elements in
            let index = info.pointee.count
            precondition(index < info.pointee.capacity, "HTTPFieldBlock is full")
            let entry = UnsafeMutableRawPointer(elements + index * HTTPFieldBlock.entryBytes)
            entry.storeBytes(of: UInt32(truncatingIfNeeded: nameStart), toByteOffset: 0, as: UInt32.self)
            entry.storeBytes(of: UInt32(truncatingIfNeeded: nameEnd), toByteOffset: 4, as: UInt32.self)
            entry.storeBytes(of: UInt32(truncatingIfNeeded: valueStart), toByteOffset: 8, as: UInt32.self)
            entry.storeBytes(of: UInt32(truncatingIfNeeded: valueEnd), toByteOffset: 12, as: UInt32.self)
            info.pointee.count = index + 1
            info.pointee.nameLengths |= HTTPFieldBlock.lengthBit(nameEnd - nameStart)
        }
    }

    @inline(__always)
    static func lengthBit(_ length: Int) -> UInt64 { 1 << UInt64(length & 63) }

    /// Whether some field name is `length` bytes long (false: no field has a name of that length).
    @inline(__always)
    func mayHaveName(ofLength length: Int) -> Bool {
        withUnsafeMutablePointerToHeader { $0.pointee.nameLengths & HTTPFieldBlock.lengthBit(length) != 0 }
    }

    /// Calls `body` with a view of the table and the bytes; valid only during the call.
    @inline(__always)
    func read<R>(_ body: (Fields) -> R) -> R {
        withUnsafeMutablePointers { info, elements in
            let tableBytes = info.pointee.capacity * HTTPFieldBlock.entryBytes
            return body(Fields(table: UnsafeRawPointer(elements), count: info.pointee.count,
                               bytes: UnsafeRawPointer(elements + tableBytes)))
        }
    }

    /// A borrowed view of the fields.
    struct Fields {
        let table: UnsafeRawPointer
        let count: Int
        let bytes: UnsafeRawPointer

        @inline(__always)
        func offset(_ index: Int, _ slot: Int) -> Int {
            Int(table.loadUnaligned(fromByteOffset: index * HTTPFieldBlock.entryBytes + slot * 4, as: UInt32.self))
        }

        /// The name of field `index` as sent.
        @inline(__always)
        func name(_ index: Int) -> UnsafeRawBufferPointer {
            let start = offset(index, 0)
            return UnsafeRawBufferPointer(start: bytes + start, count: offset(index, 1) - start)
        }

        /// The value of field `index`, without the whitespace around it.
        @inline(__always)
        func value(_ index: Int) -> UnsafeRawBufferPointer {
            let start = offset(index, 2)
            return UnsafeRawBufferPointer(start: bytes + start, count: offset(index, 3) - start)
        }

        /// Index of the first field at or after `start` called `name` (ASCII case ignored), or nil. Names of
        /// another length are skipped before any byte is compared.
        func firstIndex(named name: UnsafeRawBufferPointer, from start: Int = 0) -> Int? {
            var i = start
            while i < count {
                let candidate = self.name(i)
                if candidate.count == name.count && HTTPHeaders.equalsIgnoringCase(candidate, name) { return i }
                i += 1
            }
            return nil
        }

        /// Field `index` as strings (what iterating the headers hands out).
        func field(_ index: Int) -> HTTPHeaders.Field {
            let name = self.name(index)
            return HTTPHeaders.Field(name: HTTPRequestParser.commonFieldName(name) ?? String(decoding: name, as: UTF8.self),
                                     value: String(decoding: value(index), as: UTF8.self))
        }
    }
}
