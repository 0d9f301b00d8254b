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
}
