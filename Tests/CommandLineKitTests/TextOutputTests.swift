import Testing
@testable import CommandLineKit

/// The in-memory output the tests of both tools read.
@Suite struct TextOutputTests {
    @Test func bufferCollectsEverythingInOrder() {
        let buffer = BufferOutput()
        buffer.write("a")
        buffer.write("ü\n")
        #expect(buffer.text == "aü\n")
    }
}
