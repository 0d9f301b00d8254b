import FlagKit
import Testing
@testable import FlagClient

/// Parsing the document endpoint's body: each refusal with its path, and what is accepted.
@Suite struct FlagEnvelopeTests {
    static let document = """
        {"flags": {"a": {"type": "boolean", "default": false}}}
        """

    static func hash() throws -> String { try FlagDocument.decode(document).contentHash }

    static func body(environment: String = "\"production\"", version: String = "3", hash: String? = nil,
                     document: String = document, extra: String = "") throws -> String {
        let hash = try hash ?? "\"\(Self.hash())\""
        return "{\"environment\": \(environment), \"version\": \(version), \"contentHash\": \(hash), \"document\": \(document)\(extra)}"
    }

    @Test func decodesEveryMemberAndIgnoresUnknownOnes() throws {
        let text = try Self.body(extra: ", \"author\": \"ops\", \"message\": \"m\", \"publishedAt\": \"2026-11-29T15:30:00.123Z\", "
                                 + "\"rolledBackFrom\": 1, \"futureMember\": {\"x\": 1}")
        let envelope = try FlagEnvelope.decode(Array(text.utf8))
        #expect(envelope.environment == "production")
        #expect(envelope.version == 3)
        #expect(envelope.contentHash == (try Self.hash()))
        #expect(envelope.author == "ops" && envelope.message == "m")
        #expect(envelope.publishedAt == "2026-11-29T15:30:00.123Z")
        #expect(envelope.rolledBackFrom == 1)
        #expect(envelope.document.flags["a"]?.defaultValue == false)
    }

    @Test func decodesWhatTheTestServerSends() throws {
        let (body, _) = Envelopes.make(try Envelopes.production(), version: 12)
        #expect(try FlagEnvelope.decode(body).document == (try Envelopes.production()))
    }

    static let refusals: [(String, String)] = [
        ("not json", "malformed"),
        ("[1, 2]", "notAnEnvelope /"),
        ("{\"environment\": \"production\", \"environment\": \"staging\"}", "notAnEnvelope /environment duplicate"),
        ("{\"version\": 3}", "notAnEnvelope /environment"),
        ("{\"environment\": \"\", \"version\": 3}", "notAnEnvelope /environment"),
        ("{\"environment\": \"production\", \"version\": 0}", "notAnEnvelope /version"),
        ("{\"environment\": \"production\", \"version\": \"3\"}", "notAnEnvelope /version"),
        ("{\"environment\": \"production\", \"version\": 3.5}", "notAnEnvelope /version"),
        ("{\"environment\": \"production\", \"version\": 3, \"contentHash\": \"ABC\"}", "notAnEnvelope /contentHash"),
        ("{\"environment\": \"production\", \"version\": 3, \"contentHash\": \"\(String(repeating: "a", count: 64))\"}",
         "notAnEnvelope /document"),
    ]

    @Test(arguments: refusals)
    func refusesShapeProblems(text: String, expected: String) {
        do {
            _ = try FlagEnvelope.decode(Array(text.utf8))
            Issue.record("accepted \(text)")
        } catch {
            switch error {
            case .malformedJSON: #expect(expected == "malformed")
            case .notAnEnvelope(let path, let problem):
                let parts = expected.split(separator: " ").map(String.init)
                #expect(parts[0] == "notAnEnvelope" && (path.isEmpty ? "/" : path) == parts[1], "\(error)")
                if parts.count > 2 { #expect(problem.contains("duplicate")) }
            default: Issue.record("unexpected \(error)")
            }
        }
    }

    @Test func refusesAnInvalidDocumentWithPathsInsideTheEnvelope() throws {
        let text = try Self.body(document: "{\"flags\": {\"a\": {\"type\": \"boolean\", \"default\": \"no\"}}}")
        #expect(throws: FlagEnvelopeError.self) { try FlagEnvelope.decode(Array(text.utf8)) }
        do {
            _ = try FlagEnvelope.decode(Array(text.utf8))
        } catch {
            guard case .invalidDocument(let issues) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(issues.map(\.path) == ["/document/flags/a/default"])
            #expect(error.description.contains("/document/flags/a/default"))
        }
    }

    @Test func refusesADocumentThatDoesNotHashToTheAnnouncedHash() throws {
        let text = try Self.body(hash: "\"\(String(repeating: "0", count: 64))\"")
        #expect(throws: FlagEnvelopeError.contentHashMismatch(announced: String(repeating: "0", count: 64), actual: try Self.hash())) {
            try FlagEnvelope.decode(Array(text.utf8))
        }
    }

    @Test func refusesABadRolledBackFrom() throws {
        let text = try Self.body(extra: ", \"rolledBackFrom\": \"two\"")
        #expect(throws: FlagEnvelopeError.notAnEnvelope(path: "/rolledBackFrom", problem: "must be a positive integer")) {
            try FlagEnvelope.decode(Array(text.utf8))
        }
    }
}
