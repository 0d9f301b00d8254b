import FlagKit
import FlagService
import FlagServiceTestSupport
import FlagStore
import Testing

/// Snapshots encode once; the registry swaps them and keeps versions monotonic.
@Suite struct SnapshotTests {
    static func record(_ number: Int, environment: String = "production") throws -> (VersionRecord, FlagDocument) {
        let document = try FlagDocument.decode(#"{"flags": {"a": {"type": "integer", "default": \#(number)}}}"#)
        let bytes = document.canonicalBytes
        return (VersionRecord(environment: environment, number: number, document: bytes, contentHash: SHA256.hexDigest(bytes),
                              author: "me", createdAtMilliseconds: 1_764_430_200_123, message: "m", rolledBackFrom: nil), document)
    }

    @Test func encodesTheEnvelopeAndResponsesOnce() throws {
        let (record, document) = try Self.record(3)
        let snapshot = Snapshot(record: record, document: document)
        #expect(snapshot.etag == "\"3-\(record.contentHash.prefix(16))\"")
        #expect(snapshot.okResponse.body == snapshot.body)
        #expect(snapshot.okResponse.headers["ETag"] == snapshot.etag)
        #expect(snapshot.notModifiedResponse.status.code == 304)
        #expect(snapshot.notModifiedResponse.body.isEmpty)
        #expect(snapshot.notModifiedResponse.headers["Cache-Control"] == Snapshot.cacheControl)
        let envelope = try JSONParser.parse(snapshot.body).value
        #expect(envelope["publishedAt"] == "2025-11-29T15:30:00.123Z")
        #expect(envelope["document"] == document.jsonValue)
        #expect(snapshot.okResponse.headers["Last-Modified"] == "Sat, 29 Nov 2025 15:30:00 GMT")
    }

    @Test func splicedEnvelopeEqualsTheFullEncoding() throws {
        for rolledBack in [nil, 1] as [Int?] {
            let (plain, document) = try Self.record(2)
            let record = VersionRecord(environment: "staging", number: 2, document: plain.document, contentHash: plain.contentHash,
                                       author: "a \"quoted\" name", createdAtMilliseconds: 5, message: "ümlaut\n", rolledBackFrom: rolledBack)
            let spliced = Snapshot(record: record, document: document, documentIsCanonical: true)
            let encoded = Snapshot(record: record, document: document)
            #expect(spliced.body == encoded.body)
            #expect(spliced.body == Snapshot.envelope(record: record, document: document.jsonValue).canonicalBytes + [0x0A])
        }
        // publishedAt is FlagKit's one RFC 3339 formatter (UTC, three fraction digits).
        for (milliseconds, text) in [(0 as Int64, "1970-01-01T00:00:00.000Z"), (1_000_000_000_007, "2001-09-09T01:46:40.007Z")] {
            let (plain, _) = try Self.record(1)
            let record = VersionRecord(environment: "staging", number: 1, document: plain.document, contentHash: plain.contentHash,
                                       author: "a", createdAtMilliseconds: milliseconds, message: "", rolledBackFrom: nil)
            #expect(VersionMetadata(record).publishedAt == text)
        }
    }

    @Test func registryInstallsNewerVersionsOnly() throws {
        let registry = SnapshotStore()
        registry.setEnvironments(["production"])
        #expect(registry.snapshot("production") == nil)
        let (r2, d2) = try Self.record(2)
        let (r1, d1) = try Self.record(1)
        registry.install(Snapshot(record: r2, document: d2))
        registry.install(Snapshot(record: r1, document: d1))
        #expect(registry.snapshot("production")?.version == 2)
        let (s, sd) = try Self.record(1, environment: "staging")
        registry.install(Snapshot(record: s, document: sd))
        #expect(registry.environments == ["production", "staging"])
        #expect(registry.contains("staging"))
        #expect(!registry.contains("dev"))
    }

    @Test func loggerQuotesValuesThatNeedIt() {
        final class Lines: @unchecked Sendable { var all: [String] = [] }
        let lines = Lines()
        let logger = ServiceLogger(minimumLevel: .info) { lines.all.append($0) }
        logger.log(.debug, "hidden")
        logger.log(.info, "publish", ["env": "production", "message": "a \"b\" = c\nd"])
        #expect(lines.all.count == 1)
        #expect(lines.all[0].contains(#"event=publish env=production message="a \"b\" = c\nd""#))
        #expect(lines.all[0].hasSuffix("\n"))
        #expect(ServiceLogger.Level(name: "WARN") == .warning)
        #expect(ServiceLogger.Level(name: "loud") == nil)
    }
}
