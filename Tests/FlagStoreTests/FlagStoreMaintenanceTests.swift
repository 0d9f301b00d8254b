import FlagKit
import Foundation
import Synchronization
import TestSupport
import Testing
@testable import FlagStore

/// Online backup while writing, and integrity checks.
@Suite struct FlagStoreMaintenanceTests {
    @Test func backupWhileAnotherConnectionWritesIsConsistent() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("flags.sqlite")
        let store = try FlagStore.open(location: path)
        let writerStore = try FlagStore.open(location: path)
        let published = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        let failure = Mutex<String?>(nil)
        let writer = Thread {
            var index = 0
            while !stop.load(ordering: .sequentiallyConsistent) && index < 1_800 {
                index += 1
                do {
                    _ = try writerStore.publish(environment: index.isMultiple(of: 2) ? "staging" : "production",
                                                         document: Array(repeating: UInt8(index % 251), count: 2000) + document("\(index)"),
                                                         author: "writer")
                    published.store(index, ordering: .sequentiallyConsistent)
                } catch {
                    failure.withLock { $0 = "\(error)" }
                    return
                }
            }
        }
        writer.start()
        #expect(poll { published.load(ordering: .sequentiallyConsistent) >= 50 })
        var copies: [String] = []
        for index in 0..<3 {
            let copy = directory.file("backup-\(index).sqlite")
            try store.backup(to: copy)
            copies.append(copy)
        }
        let finishedDuringBackups = published.load(ordering: .sequentiallyConsistent)
        stop.store(true, ordering: .sequentiallyConsistent)
        #expect(poll { writer.isFinished })
        #expect(failure.withLock { $0 } == nil)
        for copy in copies {
            let backup = try FlagStore.open(location: copy)
            #expect(try backup.integrityCheck() == ["ok"])
            for environment in ["production", "staging"] {
                let versions = try backup.versions(environment: environment, limit: 1000)
                // A consistent snapshot: numbers without gaps, every document matching its hash.
                #expect(versions.map(\.number) == (0..<versions.count).map { versions.count - $0 })
                #expect(versions.allSatisfy { SHA256.hexDigest($0.document) == $0.contentHash })
            }
            #expect(try backup.versions(environment: "production", limit: 1000).count >= 25)
        }
        #expect(finishedDuringBackups >= 50)
        #expect(!FileManager.default.fileExists(atPath: copies[0] + ".partial"))
    }

    @Test func backupRefusesToOverwrite() throws {
        let directory = try TemporaryDirectory()
        let store = try FlagStore.open(location: directory.file("flags.sqlite"))
        let copy = directory.file("existing")
        #expect(FileManager.default.createFile(atPath: copy, contents: Data("keep me".utf8)))
        #expect(throws: FlagStoreError.backupDestinationExists(path: copy)) { try store.backup(to: copy) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == Data("keep me".utf8))
    }

    @Test func backupIntoAnImpossiblePathFailsClearly() throws {
        let directory = try TemporaryDirectory()
        let store = try FlagStore.open(location: directory.file("flags.sqlite"))
        #expect(throws: FlagStoreError.self) { try store.backup(to: directory.file("no/such/dir/copy.sqlite")) }
    }

    @Test func integrityCheckOfAHealthyStoreIsOK() throws {
        let directory = try TemporaryDirectory()
        let store = try FlagStore.open(location: directory.file("flags.sqlite"))
        _ = try store.publish(environment: "production", document: document("a"), author: "a")
        #expect(try store.integrityCheck() == ["ok"])
    }

    /// A backup holds the governance tables too, and a store opened on it reads them and passes its checks.
    @Test func backupCarriesChangesPoliciesAndWebhooks() throws {
        let directory = try TemporaryDirectory()
        let store = try FlagStore.open(location: directory.file("flags.sqlite"))
        _ = try store.publish(environment: "production", document: document("v1"), author: "a")
        let change = try store.createChange(requestedChange())
        try store.setPolicy(environment: "production", policy: EnvironmentPolicy(requestTTLHours: 5), actor: "admin")
        let webhook = try store.createWebhook(url: "https://a.example", secret: "s", events: ["*"], actor: "admin")
        _ = try store.enqueueWebhookEvent(WebhookEvent(id: "evt_1", type: "request.created", environment: "production",
                                                       payload: [1], createdAtMilliseconds: 1))
        try store.backup(to: directory.file("backup.sqlite"))
        let copy = try FlagStore.open(location: directory.file("backup.sqlite"))
        #expect(try copy.integrityCheck() == ["ok"] && copy.damagedVersions().isEmpty)
        #expect(try copy.change(id: change.id) == change)
        #expect(try copy.policy(environment: "production").requestTTLHours == 5)
        #expect(try copy.webhookEndpoint(id: webhook.id).secret == "s")
        #expect(try copy.pendingWebhookDeliveries(dueBy: 1).count == 1)
    }
}
