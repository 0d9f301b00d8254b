import Testing
@testable import FlagKit

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
        // The server's encoding: VersionMetadata's members plus the document, canonical (FlagService's Snapshot).
        let production = try FlagDocument.decode(try TestSupport.bytes("flags/production.json"))
        var members = VersionMetadata(environment: "production", version: 12, contentHash: production.contentHash,
                                      publishedAt: "2026-11-29T15:30:00.123Z", author: "ops", message: "m", epoch: 1_764_600_000_000).members
        members["document"] = production.jsonValue
        let envelope = try FlagEnvelope.decode(JSONValue.object(members).canonicalBytes)
        #expect(envelope.document == production)
        #expect(envelope.metadata.members == VersionMetadata(environment: "production", version: 12, contentHash: production.contentHash,
                                                             publishedAt: "2026-11-29T15:30:00.123Z", author: "ops", message: "m",
                                                             epoch: 1_764_600_000_000).members, "members round-trip")
        #expect(envelope.entityTag == "\"12-\(production.contentHash.prefix(16))\"")
        // The gzip representation of the same version: another strong tag (RFC 9110 §8.8.3), one grammar.
        let gzipTag = VersionMetadata.entityTag(version: 12, contentHash: production.contentHash, coding: .gzip)
        #expect(gzipTag == "\"12-\(production.contentHash.prefix(16))-gzip\"")
        #expect(VersionMetadata.gzipEntityTag(ofIdentityTag: envelope.entityTag) == gzipTag)
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

    @Test func refusesMetadataTextThatIsNotText() throws {
        let text = try Self.body(extra: ", \"author\": 7")
        #expect(throws: FlagEnvelopeError.notAnEnvelope(path: "/author", problem: "must be a string")) {
            try FlagEnvelope.decode(Array(text.utf8))
        }
    }

    @Test func refusesABadRolledBackFrom() throws {
        let text = try Self.body(extra: ", \"rolledBackFrom\": \"two\"")
        #expect(throws: FlagEnvelopeError.notAnEnvelope(path: "/rolledBackFrom", problem: "must be a positive integer")) {
            try FlagEnvelope.decode(Array(text.utf8))
        }
    }

    @Test func theEpochIsReadAndOptional() throws {
        #expect(try FlagEnvelope.decode(Array(Self.body().utf8)).epoch == 0, "a server from before epochs")
        #expect(try FlagEnvelope.decode(Array(Self.body(extra: ", \"epoch\": 1764600000000").utf8)).epoch == 1_764_600_000_000)
        for bad in ["-1", "\"1\"", "1.5", "true"] {
            #expect(throws: FlagEnvelopeError.notAnEnvelope(path: "/epoch", problem: "must be a non-negative integer")) {
                try FlagEnvelope.decode(Array(Self.body(extra: ", \"epoch\": \(bad)").utf8))
            }
        }
    }

    /// Versions compare within an epoch; a larger epoch (a restored server) is newer whatever its version.
    @Test func olderMeansAnEarlierEpochOrALowerVersionInTheSameOne() throws {
        let document = try FlagDocument.decode(Self.document)
        func envelope(_ version: Int, epoch: Int64) -> FlagEnvelope {
            FlagEnvelope(environment: "production", version: version, contentHash: document.contentHash, epoch: epoch, document: document)
        }
        #expect(envelope(3, epoch: 100).isOlder(than: envelope(4, epoch: 100)))
        #expect(!envelope(4, epoch: 100).isOlder(than: envelope(4, epoch: 100)))
        #expect(!envelope(5, epoch: 100).isOlder(than: envelope(4, epoch: 100)))
        #expect(!envelope(1, epoch: 200).isOlder(than: envelope(9, epoch: 100)), "restored server")
        #expect(envelope(9, epoch: 100).isOlder(than: envelope(1, epoch: 200)), "a replay from before the restore")
        #expect(envelope(9, epoch: 0).isOlder(than: envelope(1, epoch: 200)))
    }
}
