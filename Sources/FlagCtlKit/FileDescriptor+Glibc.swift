#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The raw POSIX calls of flagctl, kept together: reading files with their errno, and lines from a terminal.
// (Writing to standard streams is CommandLineKit's `FileDescriptorOutput`, which flagserver shares.)

/// Lines from a descriptor, read a byte at a time so nothing beyond the line is consumed.
public final class FileDescriptorInput: LineInput {
    private let descriptor: Int32

    /// Input from an open descriptor.
    public init(descriptor: Int32) { self.descriptor = descriptor }

    /// Standard input.
    public static func standardInput() -> FileDescriptorInput { FileDescriptorInput(descriptor: 0) }

    /// Whether the descriptor is a terminal (`isatty(3)`): only then does `publish` ask.
    public var isTerminal: Bool { isatty(descriptor) == 1 }

    /// One line without its newline (and a trailing CR); nil at end of input or on a read error.
    public func readLine() -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = withUnsafeMutableBytes(of: &byte) { systemRead(descriptor, $0.baseAddress, 1) }
            if count == 1 {
                if byte == UInt8(ascii: "\n") { break }
                bytes.append(byte)
            } else if count == 0 {
                if bytes.isEmpty { return nil }
                break
            } else if errno != EINTR {
                return nil
            }
        }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// `read(2)`, named apart from `FileReader.read`.
private func systemRead(_ descriptor: Int32, _ pointer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    guard let pointer else { return 0 }
    return read(descriptor, pointer, count)
}

/// A file that could not be read, with the errno that said why.
public struct FileReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path as given.
    public let path: String
    /// The `errno` of the failed call.
    public let code: Int32
    /// The call that failed (`open`, `read`).
    public let call: String

    /// `cannot read flags/x.json: No such file or directory (open, errno 2)`.
    public var description: String {
        "cannot read \(path): \(String(cString: strerror(code))) (\(call), errno \(code))"
    }
}

/// Reading whole files (and standard input for `-`).
public enum FileReader {
    /// Runs `check` on each readable file in turn and combines the exit statuses: an unreadable file is
    /// reported on stderr and makes the result `trouble` (2) without stopping the others; a file whose
    /// `check` returns false (problems found) makes it `failure` (1) unless it is already `trouble`.
    static func checkEach(_ files: [String], context: RunContext, _ check: (String, [UInt8]) -> Bool) -> Int32 {
        var status = ExitStatus.success
        for file in files {
            let bytes: [UInt8]
            do {
                bytes = try read(file)
            } catch {
                context.error(error.description)
                status = ExitStatus.trouble
                continue
            }
            if !check(file, bytes), status == ExitStatus.success { status = ExitStatus.failure }
        }
        return status
    }

    /// The bytes of the file at `path`; `-` reads standard input.
    public static func read(_ path: String) throws(FileReadError) -> [UInt8] {
        let descriptor: Int32
        if path == "-" {
            descriptor = 0
        } else {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw FileReadError(path: path, code: errno, call: "open") }
        }
        defer { if descriptor != 0 { close(descriptor) } }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in systemRead(descriptor, buffer.baseAddress, buffer.count) }
            if count > 0 {
                result.append(contentsOf: chunk[0..<count])
            } else if count == 0 {
                return result
            } else if errno != EINTR {
                // EISDIR arrives here for a directory: open(2) succeeds on one, read(2) refuses.
                throw FileReadError(path: path, code: errno, call: "read")
            }
        }
    }
}
