import FlagStore
import Foundation

// Hand-run measurements of the store (not a test): see Benchmarks/store.sh, which also runs a raw-SQLite
// peer in Python so the figures come with a ratio measured in the same session.
//
// usage: flagstore-bench publish DATABASE COUNT   durable publishes of ~1 KB documents, one transaction each
//        flagstore-bench batch DATABASE COUNT N   the same in group commits of N publishes (publish(batch:))
//        flagstore-bench open DATABASE            time to open the store and load every latest version
//        flagstore-bench fill DATABASE COUNT FILE COUNT versions of FILE's document (each with its number added),
//                                                  alternately in production and staging, in group commits of 256

/// A ~1 KB document that differs for every `index`.
func document(_ index: Int) -> [UInt8] {
    let padding = String(repeating: "p", count: 960)
    return Array("{\"flags\":{\"n\":{\"type\":\"integer\",\"default\":\(index)}},\"cohorts\":{},\"pad\":\"\(padding)\"}".utf8)
}

func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

let arguments = CommandLine.arguments
do {
    switch (arguments.count > 1 ? arguments[1] : "", arguments.count) {
    case ("publish", 4):
        guard let count = Int(arguments[3]), count > 0 else { throw FlagStoreError.invalidArgument(name: "COUNT", reason: "a positive integer") }
        let store = try FlagStore.open(location: arguments[2])
        let first = (try store.currentVersion(environment: "production"))?.number ?? 0
        let start = ContinuousClock.now
        for index in 0..<count {
            _ = try store.publish(environment: "production", document: document(first + index + 1), author: "bench",
                                  message: "bench \(index)", expectedCurrentVersion: first + index)
        }
        let elapsed = seconds(since: start)
        store.close()
        print(String(format: "publish: %d durable publishes in %.3f s = %.0f/s (%.3f ms each)",
                     count, elapsed, Double(count) / elapsed, elapsed * 1000 / Double(count)))
    case ("batch", 5):
        guard let count = Int(arguments[3]), count > 0, let size = Int(arguments[4]), size > 0 else {
            throw FlagStoreError.invalidArgument(name: "COUNT N", reason: "positive integers")
        }
        let store = try FlagStore.open(location: arguments[2])
        var next = ((try store.currentVersion(environment: "production"))?.number ?? 0) + 1
        let start = ContinuousClock.now
        var published = 0
        while published < count {
            let requests = (0..<min(size, count - published)).map { offset in
                PublishRequest(environment: "production", document: document(next + offset), author: "bench",
                               expectedCurrentVersion: next + offset - 1)
            }
            let results = try store.publish(batch: requests)
            for result in results { _ = try result.get() }
            published += requests.count
            next += requests.count
        }
        let elapsed = seconds(since: start)
        store.close()
        print(String(format: "batch: %d durable publishes in commits of %d in %.3f s = %.0f/s",
                     count, size, elapsed, Double(count) / elapsed))
    case ("open", 3):
        let start = ContinuousClock.now
        let store = try FlagStore.open(location: arguments[2])
        let opened = seconds(since: start)
        let latest = try store.latestVersions()
        let loaded = seconds(since: start)
        let total = latest.values.reduce(0) { $0 + $1.number }
        store.close()
        print(String(format: "open: %.2f ms, open + latestVersions: %.2f ms (%d environments, newest numbers sum %d)",
                     opened * 1000, loaded * 1000, latest.count, total))
    case ("fill", 5):
        guard let count = Int(arguments[3]), count > 0 else { throw FlagStoreError.invalidArgument(name: "COUNT", reason: "a positive integer") }
        let template = Array(try Data(contentsOf: URL(fileURLWithPath: arguments[4])))
        guard template.first == UInt8(ascii: "{") else { throw FlagStoreError.invalidArgument(name: "FILE", reason: "a JSON object") }
        let store = try FlagStore.open(location: arguments[2])
        let start = ContinuousClock.now
        var published = 0
        while published < count {
            let requests = (published..<min(published + 256, count)).map { index in
                // {"n":INDEX, ...the file's members}: a different document, and hash, every time.
                PublishRequest(environment: index.isMultiple(of: 2) ? "production" : "staging",
                               document: Array("{\"n\":\(index),".utf8) + template.dropFirst(), author: "bench", message: "fill \(index)")
            }
            for result in try store.publish(batch: requests) { _ = try result.get() }
            published += requests.count
        }
        let elapsed = seconds(since: start)
        store.close()
        print(String(format: "fill: %d versions of %d bytes in %.1f s", count, template.count, elapsed))
    default:
        FileHandle.standardError.write(Data("usage: flagstore-bench publish DATABASE COUNT | batch DATABASE COUNT N | open DATABASE | fill DATABASE COUNT FILE\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("flagstore-bench: \(error)\n".utf8))
    exit(1)
}
