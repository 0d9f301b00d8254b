import Testing
@testable import FlagKit

@Suite struct SemanticVersionTests {
    private func version(_ text: String) throws -> SemanticVersion { try #require(SemanticVersion(text)) }

    @Test func missingPartsAreZero() throws {
        #expect(try version("2.4") == version("2.4.0"))
        #expect(try version("2") == version("2.0.0"))
        #expect(try version("2.4").description == "2.4.0")
    }

    @Test func ordersAsSemVerSection11() throws {
        // The example chain of SemVer 2.0.0 section 11.4, then releases.
        let chain = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11",
                     "1.0.0-rc.1", "1.0.0", "1.0.1", "1.1", "1.10.0", "2.0.0-0", "2.0.0", "10.0.0"]
        let versions = try chain.map(version)
        for (lower, higher) in zip(versions, versions.dropFirst()) {
            #expect(lower < higher, "\(lower) < \(higher)")
            #expect(!(higher < lower))
        }
        #expect(versions.shuffled().sorted() == versions)
    }

    @Test func buildMetadataDoesNotCount() throws {
        #expect(try version("1.2.3+build.5") == version("1.2.3"))
        #expect(try !(version("1.2.3+a") < version("1.2.3+b")))
        #expect(try version("1.2.3-rc.1+exp.sha.5114f85").description == "1.2.3-rc.1+exp.sha.5114f85")
    }

    @Test(arguments: ["", "v1.2.3", "1.2.3.4", "01.2.3", "1.02", "1..2", "1.2.", "1.2.3-", "1.2.3-01", "1.2.3-a..b",
                      "1.2.3+", "1.2.3-ä", "-1.2.3", "1.2.x", " 1.2.3", "99999999999999999999.0.0"])
    func refusesInvalidVersions(text: String) {
        #expect(SemanticVersion(text) == nil)
    }

    /// The digits-and-dots fast path must answer exactly as the general parser, for valid and
    /// invalid texts alike (leading zeros, empty parts, too many parts, UInt64 overflow).
    @Test func plainFastPathAgreesWithGeneralParser() {
        var texts = ["", ".", "..", "0", "00", "01", "1.", ".1", "1..2", "1.2.3.4", "1.2.3.", "0.0.0", "2.4", "2.4.0",
                     "10.20.30", "1.02.3", "1.2.03", "18446744073709551615", "18446744073709551616",
                     "1.18446744073709551615.0", "1.99999999999999999999", "1.2.3-rc.1", "1.2.3+b", "v1.2.3", "1.2.x", " 1.2"]
        let alphabet = Array("0123.")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let length = Int.random(in: 0...8, using: &generator)
            texts.append(String((0..<length).map { _ in alphabet.randomElement(using: &generator) ?? "0" }))
        }
        for text in texts {
            let fast = SemanticVersion(text)
            let general = SemanticVersion(general: text)
            #expect(fast == general, "\(text)")
            #expect(fast?.description == general?.description, "\(text)")
        }
    }
}
