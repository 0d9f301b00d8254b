import FlagKit
import Foundation
import SymiSchema
import Testing
@testable import FlagClient

/// One document evaluated for one install, and again for another; the typed values are SymiSchemaTests'.
@Suite struct FlagSnapshotTests {
    static func snapshot(_ document: FlagDocument, context: EvaluationContext = TestClients.germanApp.evaluationContext(installId: "U1"))
        throws -> FlagSnapshot {
        let envelope = try FlagEnvelope.decode(Envelopes.make(document, version: 3).body)
        return FlagSnapshot(envelope: envelope, safeDefaults: SymiSafeDefaults.document, source: .server(version: 3, fetchedAt: Date()),
                            context: context)
    }

    @Test func evaluatedForAnotherContextKeepsSourceAndDocument() throws {
        let snapshot = try Self.snapshot(try Envelopes.production())
        let tester = snapshot.evaluated(for: EvaluationContext(installId: "9F1C2D7E-0000-4000-8000-000000000002"))
        #expect(SymiFlagValues(tester).premiumFeaturesLocked, "internal testers see the gate")
        #expect(tester.source == snapshot.source && tester.envelope == snapshot.envelope)
        #expect(!SymiFlagValues(snapshot).premiumFeaturesLocked)
    }
}
