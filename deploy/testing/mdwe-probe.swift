// Exercises the parts of the Swift runtime flagserver relies on, for deploy/test-systemd-units.sh to run
// under MemoryDenyWriteExecute's seccomp rule (testing/mdwe-exec.c): generic metadata instantiated at run
// time, existentials, key paths, async/await and task groups, Dispatch, Synchronization, Foundation's JSON,
// dates and files. Prints "mdwe-probe ok" and exits 0 when all of it worked.
import Dispatch
import Foundation
import Synchronization

struct Box<Value: Sendable & Hashable>: Sendable, Hashable {
    var value: Value
}

protocol Shape: Sendable { var area: Double { get } }
struct Square: Shape { var side: Double; var area: Double { side * side } }

func sum(_ count: Int) async -> Int {
    await withTaskGroup(of: Int.self) { group in
        for index in 0..<count { group.addTask { index } }
        return await group.reduce(0, +)
    }
}

@main
struct Probe {
    static func main() async throws {
        let boxes = Set((0..<1000).map { Box(value: "k\($0)") }).union([Box(value: "k0")])
        let shapes: [any Shape] = (1...10).map { Square(side: Double($0)) }
        let keyPath = \Box<String>.value
        let total = await sum(200)
        let counter = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 64) { _ in counter.withLock { $0 += 1 } }
        let json = try JSONSerialization.data(withJSONObject: ["flags": ["premiumFeaturesLocked": false]])
        let decoded = try JSONSerialization.jsonObject(with: json) as? [String: Any]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mdwe-probe-\(getpid())")
        try json.write(to: file, options: .atomic)
        let back = try Data(contentsOf: file)
        try FileManager.default.removeItem(at: file)
        let date = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: 0))
        let good = boxes.count == 1000 && shapes.reduce(0) { $0 + $1.area } == 385 && boxes.first?[keyPath: keyPath] != nil
            && total == 19900 && counter.withLock { $0 } == 64 && decoded?["flags"] != nil && back == json
            && date == "1970-01-01T00:00:00Z"
        print(good ? "mdwe-probe ok" : "mdwe-probe: wrong results")
        exit(good ? 0 : 1)
    }
}
