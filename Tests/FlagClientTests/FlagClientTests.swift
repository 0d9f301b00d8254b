import FlagKit
import Foundation
import SymiSchema
import TestSupport
import Testing
import TransportTestSupport
@testable import FlagClient

/// Creating a client: values at once, from a good cache or from the safe defaults, whatever is on disk.
@Suite struct FlagClientTests {
    /// A cache file holding a LOCKED document, written the way a good refresh writes it.
    static func goodLockedEntry(version: Int = 6, environment: String = "production") throws -> FlagCacheEntry {
        let envelope = Envelopes.make(try Envelopes.locked(), version: version, environment: environment)
        return FlagCacheEntry(environment: environment, etag: envelope.etag, version: version, fetchedAt: Date(),
                              document: Data(envelope.body))
    }

    /// Ways a cache file can be bad at launch, each hiding a locked document where it can.
    enum Corruption: String, CaseIterable, Sendable {
        case empty, garbage, truncated, flippedByte, directoryInTheWay, notJSONInside, invalidDocumentInside,
             envelopeOfAnotherEnvironment, fileOfAnotherEnvironment, metadataVersionDisagrees, contentHashMismatch,
             bareDocumentInside

        /// Damages (or writes) `production.flagcache` in `directory`.
        func apply(in directory: URL) throws {
            let cache = FlagCache(directory: directory)
            let file = cache.fileURL(for: "production")
            let good = try FlagClientTests.goodLockedEntry()
            func store(_ document: [UInt8], version: Int? = 6) throws {
                try cache.store(FlagCacheEntry(environment: "production", etag: "\"x\"", version: version, fetchedAt: Date(),
                                               document: Data(document)))
            }
            switch self {
            case .empty: try Data().write(to: file)
            case .garbage: try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: file)
            case .truncated:
                try cache.store(good)
                let bytes = try Data(contentsOf: file)
                try bytes.prefix(bytes.count / 2).write(to: file)
            case .flippedByte:
                try cache.store(good)
                var bytes = try Data(contentsOf: file)
                bytes[bytes.count - 40] ^= 0x01
                try bytes.write(to: file)
            case .directoryInTheWay:
                try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
            case .notJSONInside: try store(Array("<html>".utf8))
            case .invalidDocumentInside:
                let body = String(decoding: good.document, as: UTF8.self)
                    .replacingOccurrences(of: "\"default\":true,\"requires\"", with: "\"default\":1,\"requires\"")
                try store(Array(body.utf8))
            case .envelopeOfAnotherEnvironment:
                try store(Envelopes.make(try Envelopes.locked(), version: 6, environment: "staging").body)
            case .fileOfAnotherEnvironment:
                try cache.store(try FlagClientTests.goodLockedEntry(environment: "staging"))
                try FileManager.default.moveItem(at: cache.fileURL(for: "staging"), to: file)
            case .metadataVersionDisagrees: try store(Array(good.document), version: 7)
            case .contentHashMismatch:
                try store(Envelopes.make(try Envelopes.locked(), version: 6,
                                         extra: ["contentHash": .string(String(repeating: "0", count: 64))]).body)
            case .bareDocumentInside: try store(try Envelopes.locked().canonicalBytes)
            }
        }

        /// Whether the launch report names the right reason.
        func matches(_ state: CacheLaunchState) -> Bool {
            switch (self, state) {
            case (.empty, .rejected(.empty)), (.garbage, .rejected(.notACacheFile)), (.truncated, .rejected(.truncated)),
                 (.flippedByte, .rejected(.checksumMismatch)), (.directoryInTheWay, .rejected(.notARegularFile)),
                 (.fileOfAnotherEnvironment, .rejected(.environmentMismatch(expected: "production", found: "staging"))):
                true
            case (.notJSONInside, .invalidContent(.malformedJSON)), (.invalidDocumentInside, .invalidContent(.invalidDocument)),
                 (.contentHashMismatch, .invalidContent(.contentHashMismatch)),
                 (.bareDocumentInside, .invalidContent(.notAnEnvelope)):
                true
            case (.envelopeOfAnotherEnvironment, .inconsistent(let why)): why.contains("staging")
            case (.metadataVersionDisagrees, .inconsistent(let why)): why.contains("version 7")
            default: false
            }
        }
    }

    @Test(arguments: Corruption.allCases)
    func corruptedCacheFallsBackToSafeDefaultsAndIsReplacedByTheNextGoodFetch(corruption: Corruption) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try corruption.apply(in: directory.url)
        let server = try DocumentServer()
        defer { server.stop() }
        let client = TestClients.make(server, directory)
        #expect(corruption.matches(client.launchReport.cache), "\(corruption): \(client.launchReport.cache)")
        #expect(client.source == .safeDefaults)
        #expect(client.symi.premiumFeaturesLocked == false, "\(corruption): a bad cache never locks")
        #expect(client.symi.monetizationEnabled && client.symi.showIntroFreeSubscriptionBanner)
        #expect(server.requests.isEmpty, "creating a client never touches the network")

        guard corruption != .directoryInTheWay else { return }  // rename cannot replace a directory: stays on defaults
        server.publish(Envelopes.make(try Envelopes.production(), version: 8))
        #expect(await client.refresh().isSuccess)
        #expect(TestClients.make(server, directory).launchReport.cache == .loaded(version: 8))
    }

    @Test func directoryInTheWayIsReportedAsACacheErrorButTheValuesAreUsed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Corruption.directoryInTheWay.apply(in: directory.url)
        let server = try DocumentServer()
        defer { server.stop() }
        server.publish(Envelopes.make(try Envelopes.locked(), version: 8))
        let client = TestClients.make(server, directory)
        guard case .updated(version: 8, previousVersion: nil, cacheError: let error?) = await client.refresh() else {
            Issue.record("expected an update with a cache error")
            return
        }
        #expect(error.operation == "rename")
        #expect(client.symi.premiumFeaturesLocked, "a valid document is used even when it cannot be cached")
    }

    @Test func launchIsSynchronousAndNeedsNoServer() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try FlagCache(directory: directory.url).store(try Self.goodLockedEntry(version: 11))
        // A base URL nothing listens on: creation must not care.
        let url = try #require(URL(string: "http://127.0.0.1:\(try Socket.refusedPort())/"))
        let client = FlagClient(configuration: TestClients.configuration(url, directory.url))
        #expect(client.launchReport.cache == .loaded(version: 11))
        #expect(client.snapshot.envelope?.version == 11)
        #expect(client.symi.premiumFeaturesLocked)
        #expect(client.launchReport.installIdentity.origin == .created)
    }

    @Test func configuredInstallIdIsUsedAndNothingIsWrittenForIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = try #require(URL(string: "http://127.0.0.1:9/"))
        let client = FlagClient(configuration: TestClients.configuration(url, directory.url,
                                                                         installId: "9F1C2D7E-0000-4000-8000-000000000001"))
        #expect(client.installId == "9F1C2D7E-0000-4000-8000-000000000001")
        #expect(client.launchReport.installIdentity.origin == .configured)
        #expect(client.snapshot.context.installId == client.installId)
        #expect(!directory.entries().contains(InstallIdentity.fileName))
        #expect(client.symi.premiumFeaturesLocked == false, "even an internal tester is not locked by the safe defaults")
    }

    @Test func updateAppReevaluatesForTheNewLocale() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try FlagCache(directory: directory.url).store(try Self.goodLockedEntry(version: 2))
        let url = try #require(URL(string: "http://127.0.0.1:9/"))
        let client = FlagClient(configuration: TestClients.configuration(url, directory.url))
        #expect(client.symi.introOfferMessage == "Symi ist aktuell für kurze Zeit kostenlos.")
        var english = TestClients.germanApp
        english.locale = "en_GB"
        client.updateApp(english)
        #expect(client.symi.introOfferMessage == "Symi is free for a limited time.")
        #expect(client.symi.legalLinks.privacyPolicy.absoluteString == "https://symi.app/en/privacy")
        #expect(client.snapshot.context.installId == client.installId)
        #expect(client.source.version == 2)
    }

    /// The verified AppTransaction's date arrives after launch through `updateApp`: until then the early-user
    /// rule locks nothing; then the install is evaluated by its date.
    @Test func updateAppCarriesTheFirstInstallDate() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let document = try FlagDocument.decode("""
        {"flags": {"premiumFeaturesLocked": {"type": "boolean", "default": false, "rules": [
           {"cohort": "earlyUsers", "value": false}, {"cohort": "installedSinceSwitch", "value": true}]}},
         "cohorts": {"earlyUsers": {"firstInstallDate": {"before": "2027-03-01T00:00:00Z"}},
                     "installedSinceSwitch": {"firstInstallDate": {"after": "2027-03-01T00:00:00Z"}}}}
        """)
        let envelope = Envelopes.make(document, version: 4)
        try FlagCache(directory: directory.url).store(FlagCacheEntry(environment: "production", etag: envelope.etag, version: 4,
                                                                     fetchedAt: Date(), document: Data(envelope.body)))
        let url = try #require(URL(string: "http://127.0.0.1:9/"))
        let client = FlagClient(configuration: TestClients.configuration(url, directory.url))
        #expect(client.source.version == 4)
        #expect(client.symi.premiumFeaturesLocked == false, "date not known yet")
        var app = TestClients.germanApp
        app.firstInstallDate = Date(timeIntervalSince1970: 1_803_859_200.5)
        client.updateApp(app)
        #expect(client.snapshot.context.firstInstallDate == "2027-03-01T00:00:00.500Z")
        #expect(client.symi.premiumFeaturesLocked == true)
        app.firstInstallDate = Date(timeIntervalSince1970: 1_795_158_900)
        client.updateApp(app)
        #expect(client.symi.premiumFeaturesLocked == false, "an early user")
        app.firstInstallDate = nil
        client.updateApp(app)
        #expect(client.symi.premiumFeaturesLocked == false, "unknown again (verification failed): never locked")
    }
}

/// A cache directory the app cannot use at all.
@Suite struct FlagClientUnusableDirectoryTests {
    @Test func aFileWhereTheDirectoryShouldBeStillGivesSafeValuesAndAnId() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("not-a-directory")
        try Data("x".utf8).write(to: file)
        let server = try DocumentServer()
        defer { server.stop() }
        server.publish(Envelopes.make(try Envelopes.production(), version: 2))
        let client = FlagClient(configuration: TestClients.configuration(server.baseURL, file))
        guard case .unpersisted = client.launchReport.installIdentity.origin else {
            Issue.record("expected an unpersisted id, got \(client.launchReport.installIdentity.origin)")
            return
        }
        #expect(client.source == .safeDefaults && !client.symi.premiumFeaturesLocked)
        guard case .updated(version: 2, previousVersion: nil, cacheError: let error?) = await client.refresh() else {
            Issue.record("expected the document to be used although it cannot be cached")
            return
        }
        #expect(error.errno != nil)
        #expect(client.source.version == 2)
    }
}
