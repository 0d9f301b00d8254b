import Foundation

/// Text written straight to a file descriptor with `write(2)`: no buffer to flush before `exit`, short writes and
/// `EINTR` retried.
public final class FileDescriptorOutput: TextOutput {
    private let descriptor: Int32

    /// Output to an open descriptor (1 for standard output, 2 for standard error).
    public init(descriptor: Int32) { self.descriptor = descriptor }

    /// Standard output.
    public static func standardOutput() -> FileDescriptorOutput { FileDescriptorOutput(descriptor: 1) }

    /// Standard error.
    public static func standardError() -> FileDescriptorOutput { FileDescriptorOutput(descriptor: 2) }

    /// Writes everything, retrying short writes and `EINTR`; gives up silently on other errors
    /// (a closed pipe: nobody is reading, and there is nowhere to report it).
    public func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                systemWrite(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            if written > 0 {
                offset += written
            } else if written < 0, errno == EINTR {
                continue
            } else {
                return
            }
        }
        bytes.removeAll()
    }

    /// Whether the descriptor is a terminal (`isatty(3)`).
    public var isTerminal: Bool { isatty(descriptor) == 1 }
}

/// `write(2)`, named apart from `TextOutput.write`.
private func systemWrite(_ descriptor: Int32, _ pointer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    guard let pointer else { return 0 }
    return write(descriptor, pointer, count)
}
