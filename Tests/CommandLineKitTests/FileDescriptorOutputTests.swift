import Foundation
import Testing
@testable import CommandLineKit

/// Writing through a real pipe, as the tools write to standard output and error.
@Suite struct FileDescriptorOutputTests {
    @Test func writesEveryByteToTheDescriptor() async throws {
        let pipe = Pipe()
        let output = FileDescriptorOutput(descriptor: pipe.fileHandleForWriting.fileDescriptor)
        // Larger than a pipe's buffer would be without a reader: read concurrently.
        let text = String(repeating: "flagctl ü\n", count: 20_000)
        let reader = Task.detached { pipe.fileHandleForReading.readDataToEndOfFile() }
        output.write(text)
        try pipe.fileHandleForWriting.close()
        #expect(String(decoding: await reader.value, as: UTF8.self) == text)
        #expect(!output.isTerminal)
    }
}
