import Testing
@testable import HTTPServer

/// The loops' and connections' byte buffer.
@Suite struct OutputBufferTests {
    func contents(_ buffer: OutputBuffer) -> [UInt8] { buffer.withUnsent { Array($0) } }

    @Test func appendsConsumesAndGrows() {
        let buffer = OutputBuffer()
        #expect(buffer.isEmpty && contents(buffer).isEmpty)
        buffer.append(contentsOf: Array("hello ".utf8))
        buffer.append(UInt8(ascii: "w"))
        Array("orld".utf8).withUnsafeBytes { buffer.append(contentsOf: $0) }
        #expect(contents(buffer) == Array("hello world".utf8))
        buffer.consume(6)
        #expect(contents(buffer) == Array("world".utf8) && buffer.count == 5)
        // Past the first allocation: the unconsumed bytes move along.
        let big = [UInt8]((0..<10_000).map { UInt8(truncatingIfNeeded: $0) })
        buffer.append(contentsOf: big)
        #expect(contents(buffer) == Array("world".utf8) + big)
        buffer.consume(buffer.count)
        #expect(buffer.isEmpty)
    }

    @Test func roomMadeByConsumingIsReusedBeforeGrowing() {
        let buffer = OutputBuffer()
        buffer.append(contentsOf: [UInt8](repeating: 1, count: 4000))
        buffer.consume(3990)
        buffer.reserveCapacity(forAppending: 4000)
        buffer.append(contentsOf: [UInt8](repeating: 2, count: 4000))
        #expect(contents(buffer) == [UInt8](repeating: 1, count: 10) + [UInt8](repeating: 2, count: 4000))
    }

    @Test func removeAllKeepsSmallMemoryAndDropsLarge() {
        let buffer = OutputBuffer()
        buffer.append(contentsOf: [UInt8](repeating: 7, count: 100_000))
        buffer.removeAll(keepingAtMost: 1 << 20)
        #expect(buffer.isEmpty)
        buffer.append(contentsOf: [UInt8](repeating: 8, count: 3))
        buffer.removeAll(keepingAtMost: 0)
        #expect(buffer.isEmpty && contents(buffer).isEmpty)
        buffer.append(9)
        #expect(contents(buffer) == [9])
    }

    @Test func arraysAndBuffersTakeTheSameSerialization() {
        var array: [UInt8] = []
        var buffer = OutputBuffer()
        HTTPResponse.appendHead(status: .notModified, headers: ["ETag": "\"1\""], to: &array)
        HTTPResponse.appendHead(status: .notModified, headers: ["ETag": "\"1\""], to: &buffer)
        Connection.appendDecimal(1_234_567, to: &array)
        Connection.appendDecimal(1_234_567, to: &buffer)
        #expect(contents(buffer) == array)
        #expect(String(decoding: array, as: UTF8.self) == "HTTP/1.1 304 Not Modified\r\nETag: \"1\"\r\n1234567")
    }
}
