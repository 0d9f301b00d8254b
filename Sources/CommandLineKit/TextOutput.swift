/// Somewhere text goes: standard output or error in the tools, a buffer in tests.
public protocol TextOutput: AnyObject {
    /// Writes the text as UTF-8.
    func write(_ text: String)
}

/// Collects text in memory (tests, and for building output before deciding where it goes).
public final class BufferOutput: TextOutput {
    /// Everything written so far.
    public private(set) var text = ""

    /// An empty buffer.
    public init() {}

    /// Appends the text.
    public func write(_ text: String) { self.text += text }
}
