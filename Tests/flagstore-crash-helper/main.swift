import FlagKit
import FlagStore
import Foundation

// Test helper for FlagStoreTests, killed with SIGKILL mid-run by the tests. Every line is printed only after the
// store call it reports returned (i.e. its commit is durable), with write(2), unbuffered.
//
// usage: flagstore-crash-helper DATABASE [MAX_PUBLISHES]
//            publishes to `production` in a loop, printing "<number> <sha256>" per version
//        flagstore-crash-helper approve-then-wait DATABASE
//            records a change request, approves it ("approved <id>"), then waits to be killed before applying it
//        flagstore-crash-helper apply-loop DATABASE
//            first applies every change left `approved` (as a server does at start), then in a loop records a request,
//            approves it ("approved <id>") and applies it ("applied <id> <version>")

let arguments = CommandLine.arguments
let usage = "usage: flagstore-crash-helper DATABASE [MAX_PUBLISHES] | approve-then-wait DATABASE | apply-loop DATABASE\n"
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data(usage.utf8))
    exit(2)
}

/// A ~1 KB document that differs for every `index`.
func document(_ index: Int) -> [UInt8] {
    let padding = String(repeating: "x", count: 1000)
    return Array("{\"flags\":{\"n\":{\"type\":\"integer\",\"default\":\(index)}},\"padding\":\"\(padding)\"}".utf8)
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// A change request of flag `n`, approved at once (status `approved`, committed).
func approvedRequest(_ store: FlagStore) throws -> ChangeRecord {
    let change = try store.createChange(NewChange(
        environment: "production", kind: .flags, changeSet: ChangeSet(flags: ["n": ["type": "integer", "default": 0]]),
        baseVersion: 0, author: "crash-helper", message: "crash test", needsApproval: true, touchedFlags: ["n"],
        protectedFlags: ["n"]))
    let approval = try store.approveChange(id: change.id, actor: "approver")
    guard approval.happened, approval.record.status == .approved else { throw FlagStoreError.changeNotFound(id: change.id) }
    say("approved \(change.id)")
    return approval.record
}

/// Publishes change `id`'s document (the id's own document, so the tests can tell whose a version is) and marks it.
func apply(_ store: FlagStore, id: Int64) throws {
    let current = try store.currentVersion(environment: "production")?.number ?? 0
    let result = try store.applyChange(id: id, document: document(Int(id)), expectedCurrentVersion: current,
                                       actor: "crash-helper")
    guard case .applied(let record, _) = result, let version = record.appliedVersion else {
        throw FlagStoreError.changeNotFound(id: id)
    }
    say("applied \(id) \(version)")
}

do {
    switch arguments[1] {
    case "approve-then-wait":
        guard arguments.count == 3 else { throw FlagStoreError.invalidArgument(name: "arguments", reason: usage) }
        let store = try FlagStore.open(location: arguments[2])
        _ = try approvedRequest(store)
        while true { sleep(60) }
    case "apply-loop":
        guard arguments.count == 3 else { throw FlagStoreError.invalidArgument(name: "arguments", reason: usage) }
        let store = try FlagStore.open(location: arguments[2])
        for change in try store.dueChanges(now: .max) where change.status == .approved {
            try apply(store, id: change.id)
        }
        for _ in 0..<100_000 {
            try apply(store, id: try approvedRequest(store).id)
        }
    default:
        let limit = arguments.count >= 3 ? Int(arguments[2]) ?? 100_000 : 100_000
        let store = try FlagStore.open(location: arguments[1])
        let start = (try store.currentVersion(environment: "production"))?.number ?? 0
        for index in 0..<limit {
            let outcome = try store.publish(environment: "production", document: document(start + index + 1),
                                            author: "crash-helper", message: "publish \(index)")
            say("\(outcome.record.number) \(outcome.record.contentHash)")
        }
    }
} catch {
    FileHandle.standardError.write(Data("flagstore-crash-helper: \(error)\n".utf8))
    exit(1)
}
