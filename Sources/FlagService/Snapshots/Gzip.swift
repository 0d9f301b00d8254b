import CZlib

/// gzip (RFC 1952) through zlib: each version's document envelope is compressed once, when its snapshot is
/// built, and served to every client that sends `Accept-Encoding: gzip` (docs/api.md, "Compression").
enum Gzip {
    /// zlib's default level: on the production document (5.5 KB) level 9 gives the same 2.3 KB and costs more.
    static let level: Int32 = Z_DEFAULT_COMPRESSION

    /// `bytes` as one gzip member, or nil when zlib fails (out of memory): the caller then serves the identity body.
    static func compress(_ bytes: [UInt8]) -> [UInt8]? {
        var stream = z_stream()
        guard czlib_deflate_init_gzip(&stream, level) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        // deflateBound: enough room for a single deflate(Z_FINISH) call, whatever the input.
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 18)
        let produced: Int? = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                // zlib never writes through next_in; its declaration is not const.
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                guard deflate(&stream, Z_FINISH) == Z_STREAM_END else { return nil }
                return out.count - Int(stream.avail_out)
            }
        }
        guard let produced else { return nil }
        output.removeSubrange(produced...)
        return output
    }

    /// The bytes a gzip (or zlib) stream decodes to; nil when it is not one, is truncated, or decodes to more than
    /// `limit` bytes. For tests and benchmarks: the server never decodes what clients send.
    package static func decompress(_ bytes: [UInt8], limit: Int = 16 << 20) -> [UInt8]? {
        var stream = z_stream()
        guard czlib_inflate_init_auto(&stream) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        return bytes.withUnsafeBufferPointer { input -> [UInt8]? in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = uInt(input.count)
            while true {
                let (code, produced) = chunk.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    let code = inflate(&stream, Z_NO_FLUSH)
                    return (code, out.count - Int(stream.avail_out))
                }
                result.append(contentsOf: chunk[..<produced])
                guard result.count <= limit else { return nil }
                if code == Z_STREAM_END { return stream.avail_in == 0 ? result : nil }
                guard code == Z_OK, produced > 0 || stream.avail_in > 0 else { return nil }
            }
        }
    }
}
