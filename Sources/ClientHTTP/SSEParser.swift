/// One dispatched Server-Sent Event (WHATWG HTML §9.2.6, "dispatch the event").
public struct SSEEvent: Sendable, Equatable {
    /// The `event:` field, `message` when the block had none.
    public var type: String
    /// The `data:` lines joined with LF (the trailing LF removed).
    public var data: String
    /// The last `id:` seen on the stream so far (it persists across events, §9.2.6).
    public var lastEventID: String

    /// An event.
    public init(type: String = "message", data: String, lastEventID: String = "") {
        self.type = type
        self.data = data
        self.lastEventID = lastEventID
    }
}

/// An incremental `text/event-stream` parser (WHATWG HTML §9.2.6), platform neutral: bytes in as they
/// arrive, in any split, events out. Lines end in CRLF, LF or CR (a CR at the end of one chunk and an LF at
/// the start of the next are one line end); a line starting with `:` is a comment; `data:` lines are joined
/// with LF; `id:` without NUL sets the last event ID; `retry:` of ASCII digits sets the reconnection time;
/// unknown fields are ignored; a block with no data dispatches nothing.
///
/// Bounded: a line longer than `maxLineBytes` (a stream with no newlines, one huge line) or an event whose
/// data passes `maxEventBytes` (a 10 MB event) throws, so a hostile stream costs at most those bytes; the
/// caller drops the connection.
public struct SSEParser: Sendable {
    /// What one chunk of input produced, in order.
    public enum Output: Sendable, Equatable {
        /// An event was dispatched.
        case event(SSEEvent)
        /// A valid `retry:` field: the reconnection time in milliseconds.
        case retry(Int)
        /// A comment line (a heartbeat), without its colon.
        case comment(String)
    }

    /// Largest line accepted, in bytes.
    public let maxLineBytes: Int
    /// Largest data of one event accepted, in bytes.
    public let maxEventBytes: Int
    /// The last event ID (the value a reconnect sends as `Last-Event-ID`).
    public private(set) var lastEventID = ""
    private var line: [UInt8] = []
    private var data: [UInt8] = []
    private var eventType = ""
    private var sawData = false
    private var afterCR = false
    private var atStart = true

    /// A parser with the given bounds (64 KiB each by default).
    public init(maxLineBytes: Int = 64 * 1024, maxEventBytes: Int = 64 * 1024) {
        self.maxLineBytes = maxLineBytes
        self.maxEventBytes = maxEventBytes
    }

    /// Parses `bytes`; returns what they completed. Throws `TransportError` of kind `bodyTooLarge` when a line
    /// or an event passes its bound (the parser must not be fed again after that).
    public mutating func feed(_ bytes: some Sequence<UInt8>) throws(TransportError) -> [Output] {
        var out: [Output] = []
        for byte in bytes {
            if afterCR {
                afterCR = false
                if byte == 0x0A { continue }  // CRLF: the CR already ended the line
            }
            switch byte {
            case 0x0D:
                afterCR = true
                try endLine(into: &out)
            case 0x0A:
                try endLine(into: &out)
            default:
                guard line.count < maxLineBytes else {
                    throw TransportError(kind: .bodyTooLarge(limit: maxLineBytes),
                                         message: "an event-stream line exceeds \(maxLineBytes) bytes", url: "")
                }
                line.append(byte)
            }
        }
        return out
    }

    private mutating func endLine(into out: inout [Output]) throws(TransportError) {
        defer { line.removeAll(keepingCapacity: line.count <= 4096) }
        if atStart {
            atStart = false
            // One UTF-8 byte order mark at the start of the stream is skipped (§9.2.6).
            if line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }
        }
        guard !line.isEmpty else {
            dispatch(into: &out)
            return
        }
        if line[0] == 0x3A {
            out.append(.comment(String(decoding: line.dropFirst(), as: UTF8.self)))
            return
        }
        let colon = line.firstIndex(of: 0x3A)
        let name = colon.map { line[..<$0] } ?? line[...]
        var value = colon.map { line[($0 + 1)...] } ?? []
        if value.first == 0x20 { value = value.dropFirst() }
        switch String(decoding: name, as: UTF8.self) {
        case "event":
            eventType = String(decoding: value, as: UTF8.self)
        case "data":
            guard data.count + value.count + 1 <= maxEventBytes else {
                throw TransportError(kind: .bodyTooLarge(limit: maxEventBytes),
                                     message: "an event's data exceeds \(maxEventBytes) bytes", url: "")
            }
            data.append(contentsOf: value)
            data.append(0x0A)
            sawData = true
        case "id":
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let ms = Int(String(decoding: value, as: UTF8.self)) {
                out.append(.retry(ms))
            }
        default:
            break
        }
    }

    private mutating func dispatch(into out: inout [Output]) {
        defer {
            data.removeAll(keepingCapacity: data.count <= 4096)
            eventType = ""
            sawData = false
        }
        guard sawData else { return }
        if data.last == 0x0A { data.removeLast() }
        out.append(.event(SSEEvent(type: eventType.isEmpty ? "message" : eventType,
                                   data: String(decoding: data, as: UTF8.self), lastEventID: lastEventID)))
    }
}
