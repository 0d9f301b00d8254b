import ClientHTTP
import Testing

/// The WHATWG event-stream rules (HTML §9.2.6), split inputs, and the bounds against hostile streams.
@Suite struct SSEParserTests {
    static func events(_ outputs: [SSEParser.Output]) -> [SSEEvent] {
        outputs.compactMap { if case .event(let event) = $0 { event } else { nil } }
    }

    static func parse(_ text: String) throws -> [SSEParser.Output] {
        var parser = SSEParser()
        return try parser.feed(Array(text.utf8))
    }

    @Test func dataLinesAreJoinedWithLFAndTheIDPersists() throws {
        let out = try Self.parse("id: 7\ndata: first\ndata:second\ndata\n\ndata: next\n\n")
        #expect(Self.events(out) == [SSEEvent(data: "first\nsecond\n", lastEventID: "7"), SSEEvent(data: "next", lastEventID: "7")])
    }

    @Test func crlfCrAndLFAllEndLinesEvenSplitAcrossChunks() throws {
        var parser = SSEParser()
        var out = try parser.feed(Array("data: a\r".utf8))
        out += try parser.feed(Array("\ndata: b\r\r".utf8))
        out += try parser.feed(Array("data: c\n\n".utf8))
        #expect(Self.events(out) == [SSEEvent(data: "a\nb"), SSEEvent(data: "c")])
    }

    @Test func byteByByteGivesTheSameEventsAsOneChunk() throws {
        let text = "\u{FEFF}: hello\nevent: change\nid: 12\ndata: {\"type\":\"refetchEvaluation\"}\nretry: 3000\n\n"
        var parser = SSEParser()
        var out: [SSEParser.Output] = []
        for byte in Array(text.utf8) { out += try parser.feed([byte]) }
        #expect(out == [.comment(" hello"), .retry(3000),
                        .event(SSEEvent(type: "change", data: #"{"type":"refetchEvaluation"}"#, lastEventID: "12"))])
        #expect(try Self.parse(text) == out)
    }

    @Test func commentsRetryRulesAndBlocksWithoutDataDispatchNothing() throws {
        let out = try Self.parse(": heartbeat\n\nretry: 12x\nretry:\nretry: 500\nid: 3\nevent: x\n\nunknown: field\n\n")
        #expect(out == [.comment(" heartbeat"), .retry(500)])
        var parser = SSEParser()
        _ = try parser.feed(Array("id: 3\n\nid: bad\u{0}id\n\n".utf8))
        #expect(parser.lastEventID == "3")  // an id with NUL is ignored
    }

    @Test func anEventWaitsForItsBlankLine() throws {
        #expect(try Self.parse("data: unfinished\n").isEmpty)
        #expect(try Self.parse("data: no newline at all").isEmpty)
    }

    @Test func aLineOrEventPastTheBoundThrowsAndGarbageDispatchesNothing() throws {
        var noNewlines = SSEParser(maxLineBytes: 1024)
        #expect(throws: TransportError.self) { _ = try noNewlines.feed([UInt8](repeating: 0x61, count: 1025)) }
        var huge = SSEParser(maxLineBytes: 64 * 1024, maxEventBytes: 64 * 1024)
        let line = Array(("data: " + String(repeating: "x", count: 60_000) + "\n").utf8)
        #expect(throws: TransportError.self) {
            for _ in 0..<170 { _ = try huge.feed(line) }  // a 10 MB event, refused at 64 KiB
        }
        var garbage = SSEParser()
        // Lines of bytes that are not UTF-8 and name no field: ignored, and the blank lines dispatch nothing.
        let noise = (0..<500).map { UInt8(truncatingIfNeeded: $0 &* 7919 | 0x80) } + [0x0A, 0x0A]
        for _ in 0..<200 { #expect(Self.events(try garbage.feed(noise)).isEmpty) }
    }
}
