import Foundation
import TestSupport
import Testing
@testable import FlagClient

/// The install id: generated once, read back, replaced when damaged, usable even when it cannot be written.
@Suite struct InstallIdentityTests {
    func file(_ directory: TemporaryDirectory) -> URL { directory.url.appendingPathComponent(InstallIdentity.fileName) }

    @Test func generatedOnceThenReadBack() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = InstallIdentity.loadOrCreate(in: directory.url)
        #expect(first.origin == .created)
        #expect(UUID(uuidString: first.id) != nil)
        #expect(try String(contentsOf: file(directory), encoding: .utf8) == first.id + "\n")
        let second = InstallIdentity.loadOrCreate(in: directory.url)
        #expect(second == InstallIdentity(id: first.id, origin: .loaded))
        #expect(directory.entries() == [InstallIdentity.fileName], "no temporary file left behind")
    }

    @Test func createsTheDirectory() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let nested = directory.url.appendingPathComponent("a/b")
        #expect(InstallIdentity.loadOrCreate(in: nested).origin == .created)
        #expect(InstallIdentity.loadOrCreate(in: nested).origin == .loaded)
    }

    @Test(arguments: [("", "empty file"), ("not-a-uuid\n", "not a UUID"), ("9F1C2D7E-0000-4000-8000", "not a UUID")])
    func damagedFileIsReplaced(content: String, reason: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data(content.utf8).write(to: file(directory))
        let identity = InstallIdentity.loadOrCreate(in: directory.url)
        #expect(identity.origin == .replaced(reason: reason))
        #expect(InstallIdentity.loadOrCreate(in: directory.url) == InstallIdentity(id: identity.id, origin: .loaded))
    }

    @Test func lowercaseIdIsReadAndNormalized() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data("9f1c2d7e-0000-4000-8000-000000000001\n".utf8).write(to: file(directory))
        #expect(InstallIdentity.loadOrCreate(in: directory.url).id == "9F1C2D7E-0000-4000-8000-000000000001")
    }

    @Test func emptyDirectoryInTheWayIsReplaced() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: file(directory), withIntermediateDirectories: false)
        let identity = InstallIdentity.loadOrCreate(in: directory.url)
        #expect(identity.origin == .replaced(reason: "not a regular file"))
        #expect(InstallIdentity.loadOrCreate(in: directory.url).id == identity.id)
    }

    @Test func unwritableDirectoryStillGivesAnId() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let undo = try directory.makeReadOnly()
        defer { undo() }
        let identity = InstallIdentity.loadOrCreate(in: directory.url)
        guard case .unpersisted(let error) = identity.origin else {
            Issue.record("expected unpersisted, got \(identity.origin)")
            return
        }
        #expect(error.operation == "open" && error.errno != nil)
        #expect(UUID(uuidString: identity.id) != nil)
    }
}
