import Foundation
import Testing
@testable import FlagKit

/// HMAC-SHA256: every test case of RFC 4231 §4, and random inputs against Python's `hmac`.
@Suite struct HMACSHA256Tests {
    private static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// RFC 4231 §4.2-4.8: (key, data, HMAC-SHA-256). Case 5's expected value is truncated to 128 bits there.
    static let rfc4231: [(key: [UInt8], data: [UInt8], code: String)] = [
        ([UInt8](repeating: 0x0b, count: 20), bytes("Hi There"),
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (bytes("Jefe"), bytes("what do ya want for nothing?"),
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        ([UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
         "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        (Array(1...25), [UInt8](repeating: 0xcd, count: 50),
         "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        ([UInt8](repeating: 0x0c, count: 20), bytes("Test With Truncation"), "a3b6167473100ee06e0c796c2955552b"),
        ([UInt8](repeating: 0xaa, count: 131), bytes("Test Using Larger Than Block-Size Key - Hash Key First"),
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        ([UInt8](repeating: 0xaa, count: 131),
         bytes("This is a test using a larger than block-size key and a larger than block-size data. "
               + "The key needs to be hashed before being used by the HMAC algorithm."),
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test(arguments: 0..<7) func rfc4231TestCase(_ index: Int) {
        let (key, data, code) = Self.rfc4231[index]
        let hex = HMACSHA256.hexAuthenticationCode(key: key, message: data)
        // Case 5 (index 4) publishes only the first 128 bits: compare that prefix, the rest must still be there.
        #expect(hex.count == 64)
        #expect(hex.hasPrefix(code), "test case \(index + 1)")
        #expect(HMACSHA256.authenticationCode(key: key, message: data).count == HMACSHA256.codeSize)
    }

    /// A key of exactly the block size is used as is; one byte more is hashed first: both sides of the edge.
    @Test func keysAtTheBlockSizeEdge() {
        let message = Self.bytes("edge")
        let exact = [UInt8](repeating: 0x41, count: 64)
        let longer = [UInt8](repeating: 0x41, count: 65)
        #expect(HMACSHA256.authenticationCode(key: exact, message: message)
            != HMACSHA256.authenticationCode(key: longer, message: message))
        // A long key and its SHA-256 digest are the same key (RFC 2104 §2).
        #expect(HMACSHA256.authenticationCode(key: longer, message: message)
            == HMACSHA256.authenticationCode(key: SHA256.hash(longer), message: message))
    }

    @Test func validationComparesTheWholeCode() {
        let key = Self.bytes("whsec_test")
        let message = Self.bytes("1772319600.{\"id\":\"evt_1\"}")
        var code = HMACSHA256.authenticationCode(key: key, message: message)
        #expect(HMACSHA256.isValid(code: code, key: key, message: message))
        code[31] ^= 1
        #expect(!HMACSHA256.isValid(code: code, key: key, message: message))
        #expect(!HMACSHA256.isValid(code: Array(code.prefix(16)), key: key, message: message))
        #expect(!HMACSHA256.isValid(code: [], key: key, message: message))
    }

    /// 200 random keys (0...200 bytes, across the block size) and messages (0...300 bytes) against Python.
    @Test func agreesWithPythonHMACOnRandomInputs() throws {
        let python = try #require(Self.python3(), "python3 is needed for the cross-check")
        var generator = SystemRandomNumberGenerator()
        let cases: [([UInt8], [UInt8])] = (0..<200).map { _ in
            let key = (0..<Int.random(in: 0...200, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let message = (0..<Int.random(in: 0...300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            return (key, message)
        }
        let input = cases.map { "\(SHA256.hex($0.0)) \(SHA256.hex($0.1))" }.joined(separator: "\n") + "\n"
        let script = """
            import hmac, hashlib, sys
            for line in sys.stdin:
                key, message = (bytes.fromhex(part) for part in line.rstrip("\\n").split(" "))
                print(hmac.new(key, message, hashlib.sha256).hexdigest())
            """
        let output = try Self.run(python, ["-c", script], stdin: Data(input.utf8))
        let expected = output.split(separator: "\n").map(String.init)
        try #require(expected.count == cases.count)
        for (index, (key, message)) in cases.enumerated() {
            #expect(HMACSHA256.hexAuthenticationCode(key: key, message: message) == expected[index],
                    "key \(SHA256.hex(key)) message \(SHA256.hex(message))")
        }
    }

    static func python3() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/python3" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `executable` with `stdin` and returns its standard output; fails on a non-zero exit.
    static func run(_ executable: String, _ arguments: [String], stdin: Data) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(stdin)
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(executable) exited with \(process.terminationStatus)")
        return String(decoding: data, as: UTF8.self)
    }
}
