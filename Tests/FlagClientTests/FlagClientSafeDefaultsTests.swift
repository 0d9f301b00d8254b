import FlagKit
import Foundation
import TestSupport
import Testing
@testable import FlagClient

/// The safe-defaults mechanism is the app's: the document it configures is evaluated until a valid one arrives, and
/// without one every lookup gives the caller's default.
@Suite struct FlagClientSafeDefaultsTests {
    static let defaults = """
        {"flags": {"banner": {"type": "boolean", "default": true},
                   "greeting": {"type": "string", "default": "Hallo", "rules": [{"cohort": "english", "value": "Hello"}]}},
         "cohorts": {"english": {"locale": {"startsWith": "en"}}}}
        """

    static func client(safeDefaults: FlagDocument?, locale: String, in directory: TemporaryDirectory) throws -> FlagClient {
        let url = try #require(URL(string: "http://127.0.0.1:9"))
        var configuration = TestClients.configuration(url, directory.url, app: AppContext(locale: locale))
        configuration.safeDefaults = safeDefaults
        return FlagClient(configuration: configuration)
    }

    @Test func theConfiguredDocumentIsEvaluatedForTheInstall() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let document = try FlagDocument.decode(Self.defaults)
        let german = try Self.client(safeDefaults: document, locale: "de_DE", in: directory)
        #expect(german.source == .safeDefaults && german.snapshot.document == document)
        #expect(german.bool("banner", default: false) && german.string("greeting", default: "") == "Hallo")
        let english = try Self.client(safeDefaults: document, locale: "en_US", in: directory)
        #expect(english.stringDetails("greeting", default: "").value == "Hello")
        #expect(english.stringDetails("greeting", default: "").reason == .targetingMatch)
        #expect(english.snapshot.evaluated(for: EvaluationContext(locale: "de_AT")).string("greeting", default: "") == "Hallo",
                "another context keeps the safe document")
    }

    @Test func withoutSafeDefaultsEveryLookupGivesItsDefault() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let client = try Self.client(safeDefaults: nil, locale: "de_DE", in: directory)
        #expect(client.source == .safeDefaults && client.snapshot.document == nil && client.snapshot.results.isEmpty)
        #expect(!client.bool("banner", default: false) && client.bool("banner", default: true))
        #expect(client.boolDetails("banner", default: false).errorCode == .flagNotFound)
    }
}
