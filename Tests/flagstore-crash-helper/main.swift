import FlagKit
import FlagStore
import Foundation

// Test helper for FlagStoreTests: publishes to `production` in a loop and prints "<number> <sha256>" for
// each version only after `publish` returned (i.e. the commit is durable), unbuffered.
// The test kills it with SIGKILL mid-stream and checks that every printed version survived.
//
// usage: flagstore-crash-helper DATABASE [MAX_PUBLISHES]

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: flagstore-crash-helper DATABASE [MAX_PUBLISHES]\n".utf8))
    exit(2)
}
let limit = arguments.count >= 3 ? Int(arguments[2]) ?? 100_000 : 100_000

/// A ~1 KB document that differs for every `index`.
func document(_ index: Int) -> [UInt8] {
    let padding = String(repeating: "x", count: 1000)
    return Array("{\"flags\":{\"n\":{\"type\":\"integer\",\"default\":\(index)}},\"padding\":\"\(padding)\"}".utf8)
}

do {
    let store = try FlagStore.open(path: arguments[1])
    let start = (try store.currentVersion(environment: "production"))?.number ?? 0
    for index in 0..<limit {
        let outcome = try store.publish(environment: "production", document: document(start + index + 1),
                                        author: "crash-helper", message: "publish \(index)")
        // FileHandle writes with write(2), unbuffered: the line is out before the next publish starts.
        FileHandle.standardOutput.write(Data("\(outcome.record.number) \(outcome.record.contentHash)\n".utf8))
    }
} catch {
    FileHandle.standardError.write(Data("flagstore-crash-helper: \(error)\n".utf8))
    exit(1)
}
